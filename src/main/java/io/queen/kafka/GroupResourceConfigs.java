package io.queen.kafka;

import java.sql.SQLException;
import java.util.List;
import java.util.UUID;
import org.apache.kafka.common.errors.InvalidConfigurationException;

/**
 * The configs of a GROUP resource (DescribeConfigs, IncrementalAlterConfigs): served by the share groups
 * ({@code io.queen.kafka.share}), whose configs they are, so that the config APIs need not know them.
 */
public interface GroupResourceConfigs {
    /** One described config: its value (the broker's default when the group sets none) and type. */
    record Described(String name, String value, boolean isDefault, byte type) {
    }

    /** Whether {@code group} is a name a group can have. */
    boolean valid(String group);

    /** Every config of the group, the named ones only when {@code names} is not null. */
    List<Described> describe(UUID tenant, String group, List<String> names) throws SQLException;

    /**
     * Checks (and unless {@code validateOnly} stores) one config; {@code value} null deletes it (back to the
     * default). Throws {@link InvalidConfigurationException} naming a config that is not a group config or a value
     * out of its range.
     */
    void set(UUID tenant, String group, String name, String value, boolean validateOnly) throws SQLException;
}
