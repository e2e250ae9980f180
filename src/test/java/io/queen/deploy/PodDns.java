package io.queen.deploy;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.net.spi.InetAddressResolver;
import java.net.spi.InetAddressResolverProvider;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * This JVM's name resolution with the pods' DNS names a test gives it (what a cluster's DNS answers for the records
 * of a headless Service); every other name is resolved as the JDK does. Installed for the whole test JVM through
 * {@code META-INF/services/java.net.spi.InetAddressResolverProvider}, so the Kafka client resolves the hosts the
 * brokers advertise.
 */
public final class PodDns extends InetAddressResolverProvider {
    private static final Map<String, byte[]> NAMES = new ConcurrentHashMap<>();
    private static final Set<String> LOOKED_UP = ConcurrentHashMap.newKeySet();

    /** From now on {@code host} resolves to {@code address} in this JVM. */
    static void map(String host, InetAddress address) {
        NAMES.put(host.toLowerCase(Locale.ROOT), address.getAddress());
    }

    /** Whether something in this JVM resolved {@code host} since it was mapped. */
    static boolean lookedUp(String host) {
        return LOOKED_UP.contains(host.toLowerCase(Locale.ROOT));
    }

    @Override
    public InetAddressResolver get(Configuration configuration) {
        InetAddressResolver builtin = configuration.builtinResolver();
        return new InetAddressResolver() {
            @Override
            public Stream<InetAddress> lookupByName(String host, LookupPolicy policy) throws UnknownHostException {
                String name = host.toLowerCase(Locale.ROOT);
                byte[] address = NAMES.get(name);
                if (address == null) {
                    return builtin.lookupByName(host, policy);
                }
                LOOKED_UP.add(name);
                return Stream.of(InetAddress.getByAddress(host, address));
            }

            @Override
            public String lookupByAddress(byte[] address) throws UnknownHostException {
                return builtin.lookupByAddress(address);
            }
        };
    }

    @Override
    public String name() {
        return "queen test pod DNS";
    }
}
