package io.queen.kafka;

import io.queen.compaction.CompactionSettings;
import io.queen.kafka.transport.KafkaApiProvider;
import io.queen.kafka.transport.KafkaApis;
import io.queen.kafka.transport.KafkaCaller;
import io.queen.kafka.transport.KafkaHandler;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.message.AlterConfigsRequestData;
import org.apache.kafka.common.message.AlterConfigsResponseData;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsResourceResult;
import org.apache.kafka.common.message.DescribeConfigsResponseData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.DescribeConfigsResponse;

/**
 * DescribeConfigs, AlterConfigs and IncrementalAlterConfigs for the topic configs that map onto queue options:
 * {@code retention.ms} (the queue's retention; -1 = kept until deleted), {@code cleanup.policy} and the compaction
 * settings ({@link CompactionSettings}) are described and set; {@code retention.bytes} (always -1) is described,
 * read-only; {@code segment.ms} is checked and otherwise met already ({@link TopicConfigs}). Setting any other
 * config is refused with INVALID_CONFIG; a broker resource is described with no configs. A resource of a type Apache
 * Kafka does not know is answered INVALID_REQUEST for itself, as Kafka answers it, before any of its configs is
 * looked at. Stateless, thread-safe.
 */
@ApplicationScoped
class ConfigApis implements KafkaApiProvider {
    /** Size-based retention: Queen has none (-1), described so clients that check it (Kafka Streams) find it. */
    static final String RETENTION_BYTES = "retention.bytes";

    private final Topics topics;
    private final KafkaStore store;
    private final GroupResourceConfigs groups;
    private final CompactionSettings compaction;

    ConfigApis(Topics topics, KafkaStore store, GroupResourceConfigs groups, CompactionSettings compaction) {
        this.compaction = compaction;
        this.topics = topics;
        this.store = store;
        this.groups = groups;
    }

    @Override
    public void register(KafkaApis apis) {
        apis.serve(ApiKeys.DESCRIBE_CONFIGS, 4, (KafkaHandler<DescribeConfigsRequestData>) (c, v, r) ->
                        TopicApis.done(describe(c, r)))
                .serve(ApiKeys.ALTER_CONFIGS, 2, (KafkaHandler<AlterConfigsRequestData>) (c, v, r) ->
                        TopicApis.done(alter(c, r)))
                .serve(ApiKeys.INCREMENTAL_ALTER_CONFIGS, 1,
                        (KafkaHandler<IncrementalAlterConfigsRequestData>) (c, v, r) ->
                                TopicApis.done(incremental(c, r)));
    }

    DescribeConfigsResponseData describe(KafkaCaller caller, DescribeConfigsRequestData request) throws Exception {
        UUID tenant = TopicApis.tenant(caller);
        DescribeConfigsResponseData out = new DescribeConfigsResponseData();
        for (DescribeConfigsRequestData.DescribeConfigsResource res : request.resources()) {
            DescribeConfigsResponseData.DescribeConfigsResult r = new DescribeConfigsResponseData.DescribeConfigsResult()
                    .setResourceType(res.resourceType()).setResourceName(res.resourceName());
            out.results().add(r);
            String unknown = unknownType(res.resourceType());
            if (unknown != null) {
                r.setErrorCode(Errors.INVALID_REQUEST.code()).setErrorMessage(unknown);
                continue;
            }
            if (res.resourceType() == ConfigResource.Type.GROUP.id()) {
                describeGroup(tenant, res, r);
                continue;
            }
            if (res.resourceType() != ConfigResource.Type.TOPIC.id()) {
                continue;  // a broker or other resource: nothing configurable through Kafka
            }
            KafkaStore.Topic t = topics.lookup(tenant, List.of(res.resourceName()), false).get(res.resourceName());
            if (t == null) {
                r.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
                continue;
            }
            String retention = t.retentionEnabled() && t.retentionSeconds() > 0
                    ? Long.toString(t.retentionSeconds() * 1000L) : "-1";
            Map<String, String> configs = new LinkedHashMap<>();
            configs.put(TopicConfigs.RETENTION_MS, retention);
            configs.put(RETENTION_BYTES, "-1");
            configs.put(TopicConfigs.CLEANUP_POLICY, t.cleanupPolicy());
            List<String> defaults = new ArrayList<>();
            for (CompactionSettings.Setting s : compaction.describe(t.id())) {
                configs.put(s.name(), s.value());
                if (s.isDefault()) {
                    defaults.add(s.name());
                }
            }
            for (Map.Entry<String, String> e : configs.entrySet()) {
                if (res.configurationKeys() != null && !res.configurationKeys().contains(e.getKey())) {
                    continue;
                }
                String name = e.getKey();
                r.configs().add(new DescribeConfigsResourceResult().setName(name).setValue(e.getValue())
                        .setReadOnly(name.equals(RETENTION_BYTES))
                        .setConfigSource((defaults.contains(name) ? DescribeConfigsResponse.ConfigSource.DEFAULT_CONFIG
                                : DescribeConfigsResponse.ConfigSource.TOPIC_CONFIG).id())
                        .setConfigType((name.equals(TopicConfigs.CLEANUP_POLICY) ? DescribeConfigsResponse.ConfigType.LIST
                                : name.equals(CompactionSettings.MIN_DIRTY_RATIO) ? DescribeConfigsResponse.ConfigType.DOUBLE
                                : DescribeConfigsResponse.ConfigType.LONG).id()));
            }
        }
        return out;
    }

    AlterConfigsResponseData alter(KafkaCaller caller, AlterConfigsRequestData request) throws Exception {
        UUID tenant = TopicApis.tenant(caller);
        AlterConfigsResponseData out = new AlterConfigsResponseData();
        for (AlterConfigsRequestData.AlterConfigsResource res : request.resources()) {
            AlterConfigsResponseData.AlterConfigsResourceResponse r = new AlterConfigsResponseData
                    .AlterConfigsResourceResponse().setResourceType(res.resourceType())
                    .setResourceName(res.resourceName());
            out.responses().add(r);
            // AlterConfigs replaces the whole set: a config left out goes back to its default
            TopicConfigs.Change change = new TopicConfigs.Change();
            try {
                requireTopic(res.resourceType());
                change.set(TopicConfigs.RETENTION_MS, null);
                change.set(TopicConfigs.CLEANUP_POLICY, null);
                CompactionSettings.NAMES.forEach(n -> change.set(n, null));
                for (AlterConfigsRequestData.AlterableConfig c : res.configs()) {
                    change.set(c.name(), c.value());
                }
                apply(tenant, res.resourceName(), change, request.validateOnly(), r);
            } catch (InvalidConfigurationException | InvalidRequestException e) {
                r.setErrorCode(Errors.forException(e).code()).setErrorMessage(e.getMessage());
            }
        }
        return out;
    }

    IncrementalAlterConfigsResponseData incremental(KafkaCaller caller, IncrementalAlterConfigsRequestData request)
            throws Exception {
        UUID tenant = TopicApis.tenant(caller);
        IncrementalAlterConfigsResponseData out = new IncrementalAlterConfigsResponseData();
        for (IncrementalAlterConfigsRequestData.AlterConfigsResource res : request.resources()) {
            IncrementalAlterConfigsResponseData.AlterConfigsResourceResponse r = new IncrementalAlterConfigsResponseData
                    .AlterConfigsResourceResponse().setResourceType(res.resourceType())
                    .setResourceName(res.resourceName());
            out.responses().add(r);
            TopicConfigs.Change change = new TopicConfigs.Change();
            try {
                if (res.resourceType() == ConfigResource.Type.GROUP.id()) {
                    alterGroup(tenant, res, request.validateOnly());
                    continue;
                }
                requireTopic(res.resourceType());
                for (IncrementalAlterConfigsRequestData.AlterableConfig c : res.configs()) {
                    switch (c.configOperation()) {
                        case 0 -> change.set(c.name(), c.value());  // SET
                        case 1 -> change.set(c.name(), null);  // DELETE: back to the default
                        default -> throw new InvalidRequestException("only SET and DELETE apply to " + c.name());
                    }
                }
                AlterConfigsResponseData.AlterConfigsResourceResponse tmp =
                        new AlterConfigsResponseData.AlterConfigsResourceResponse();
                apply(tenant, res.resourceName(), change, request.validateOnly(), tmp);
                r.setErrorCode(tmp.errorCode()).setErrorMessage(tmp.errorMessage());
            } catch (InvalidConfigurationException | InvalidRequestException e) {
                r.setErrorCode(Errors.forException(e).code()).setErrorMessage(e.getMessage());
            }
        }
        return out;
    }

    private void describeGroup(UUID tenant, DescribeConfigsRequestData.DescribeConfigsResource res,
            DescribeConfigsResponseData.DescribeConfigsResult r) throws Exception {
        if (!groups.valid(res.resourceName())) {
            r.setErrorCode(Errors.INVALID_GROUP_ID.code());
            return;
        }
        for (GroupResourceConfigs.Described d : groups.describe(tenant, res.resourceName(),
                res.configurationKeys())) {
            r.configs().add(new DescribeConfigsResourceResult().setName(d.name()).setValue(d.value())
                    .setReadOnly(false).setConfigType(d.type())
                    .setConfigSource((d.isDefault() ? DescribeConfigsResponse.ConfigSource.DEFAULT_CONFIG
                            : DescribeConfigsResponse.ConfigSource.GROUP_CONFIG).id()));
        }
    }

    /** A GROUP resource's configs: every one is checked before any is stored (all or none). */
    private void alterGroup(UUID tenant, IncrementalAlterConfigsRequestData.AlterConfigsResource res,
            boolean validateOnly) throws Exception {
        if (!groups.valid(res.resourceName())) {
            throw new InvalidRequestException("invalid group id");
        }
        for (boolean dryRun : validateOnly ? new boolean[] {true} : new boolean[] {true, false}) {
            for (IncrementalAlterConfigsRequestData.AlterableConfig c : res.configs()) {
                switch (c.configOperation()) {
                    case 0 -> groups.set(tenant, res.resourceName(), c.name(), c.value(), dryRun);  // SET
                    case 1 -> groups.set(tenant, res.resourceName(), c.name(), null, dryRun);  // DELETE
                    default -> throw new InvalidRequestException("only SET and DELETE apply to " + c.name());
                }
            }
        }
    }

    /**
     * Why a resource of this type is answered INVALID_REQUEST whatever it names (Apache Kafka's answer to a type it
     * does not know), or null for a type it knows.
     */
    private static String unknownType(byte type) {
        return ConfigResource.Type.forId(type) == ConfigResource.Type.UNKNOWN ? "Unknown resource type " + type + "."
                : null;
    }

    /** Throws INVALID_REQUEST for a resource whose configs cannot be altered here, before its configs are read. */
    private static void requireTopic(byte type) {
        String unknown = unknownType(type);
        if (unknown != null) {
            throw new InvalidRequestException(unknown);
        }
        if (type != ConfigResource.Type.TOPIC.id()) {
            throw new InvalidRequestException("only topic configs can be altered");
        }
    }

    /** Applies a checked change to a topic (nothing when {@code validateOnly}); UNKNOWN_TOPIC_OR_PARTITION when absent. */
    private void apply(UUID tenant, String name, TopicConfigs.Change change, boolean validateOnly,
            AlterConfigsResponseData.AlterConfigsResourceResponse r) throws Exception {
        KafkaStore.Topic t = Topics.valid(name) ? topics.lookup(tenant, List.of(name), false).get(name) : null;
        if (t == null) {
            r.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
            return;
        }
        if (validateOnly) {
            return;
        }
        if (change.retentionSeconds != null) {
            store.setRetention(tenant, name, change.retentionSeconds);
        }
        if (change.cleanupPolicy != null) {
            compaction.setPolicy(tenant, name, change.cleanupPolicy);
        }
        for (Map.Entry<String, String> e : change.compaction.entrySet()) {
            compaction.set(t.id(), e.getKey(), e.getValue());
        }
    }
}
