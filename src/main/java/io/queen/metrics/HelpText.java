package io.queen.metrics;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.config.MeterFilter;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/**
 * Every Prometheus family gets a {@code # HELP} line: a library meter registered without a description (Netty's
 * allocator gauges, for one) gets one naming its origin, derived from its name. The broker's own meters
 * ({@code queen.*}) are left alone: they must describe themselves, and a test scrape fails when one does not.
 * Stateless, thread-safe.
 */
@Singleton
public class HelpText {
    @Produces
    @Singleton
    MeterFilter describeLibraryMeters() {
        return new MeterFilter() {
            @Override
            public Meter.Id map(Meter.Id id) {
                String d = id.getDescription();
                if ((d != null && !d.isBlank()) || id.getName().startsWith("queen.")) {
                    return id;
                }
                return new Meter.Id(id.getName(), Tags.of(id.getTagsAsIterable()), id.getBaseUnit(),
                        describe(id.getName()), id.getType());
            }
        };
    }

    /** "netty.allocator.memory.pinned" -> "netty allocator memory pinned (reported by the netty library)". */
    static String describe(String name) {
        String lib = name.contains(".") ? name.substring(0, name.indexOf('.')) : name;
        return name.replace('.', ' ').replace('_', ' ') + " (reported by the " + lib + " library)";
    }
}
