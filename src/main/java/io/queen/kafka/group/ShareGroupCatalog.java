package io.queen.kafka.group;

import java.sql.SQLException;
import java.util.Map;
import java.util.UUID;

/**
 * The share groups (KIP-932, {@code io.queen.kafka.share}) as the group APIs need them: ListGroups lists them,
 * DescribeGroups and DeleteGroups answer for them, and a classic or consumer member may not join one. Implemented
 * by the share groups, which depend on this package, not the other way round.
 */
public interface ShareGroupCatalog {
    /** No share groups (a coordinator built without them: unit tests). */
    ShareGroupCatalog NONE = new ShareGroupCatalog() {
        @Override
        public Map<String, String> list(UUID tenant) {
            return Map.of();
        }

        @Override
        public boolean live(UUID tenant, String group) {
            return false;
        }

        @Override
        public boolean delete(UUID tenant, String group) {
            return false;
        }
    };

    /** The tenant's share groups by name, with their state ({@code Stable} with members, else {@code Empty}). */
    Map<String, String> list(UUID tenant) throws SQLException;

    /** Whether a share group of that name has members on this broker. */
    boolean live(UUID tenant, String group);

    /** Deletes a share group without members (its records in flight, configs, beginning); false when none was. */
    boolean delete(UUID tenant, String group) throws SQLException;
}
