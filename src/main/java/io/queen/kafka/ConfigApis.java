package io.queen.kafka;

import io.queen.kafka.transport.KafkaApiProvider;
import io.queen.kafka.transport.KafkaApis;
import io.queen.kafka.transport.KafkaCaller;
import io.queen.kafka.transport.KafkaHandler;
import jakarta.enterprise.context.ApplicationScoped;
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
 * {@code retention.ms} (the queue's retention; -1 = kept until deleted) is described and set;
 * {@code cleanup.policy} (as the topic was created) and {@code retention.bytes} (always -1) are described,
 * read-only. Setting any other config is refused with INVALID_CONFIG; a broker resource is described with no
 * configs. Stateless, thread-safe.
 */
@ApplicationScoped
class ConfigApis implements KafkaApiProvider {
    /** Size-based retention: Queen has none (-1), described so clients that check it (Kafka Streams) find it. */
    static final String RETENTION_BYTES = "retention.bytes";

    private final Topics topics;
    private final KafkaStore store;
    private final GroupResourceConfigs groups;

    ConfigApis(Topics topics, KafkaStore store, GroupResourceConfigs groups) {
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
            for (Map.Entry<String, String> e : configs.entrySet()) {
                if (res.configurationKeys() != null && !res.configurationKeys().contains(e.getKey())) {
                    continue;
                }
                boolean retentionKey = e.getKey().equals(TopicConfigs.RETENTION_MS);
                r.configs().add(new DescribeConfigsResourceResult().setName(e.getKey()).setValue(e.getValue())
                        .setReadOnly(!retentionKey)
                        .setConfigSource(DescribeConfigsResponse.ConfigSource.TOPIC_CONFIG.id())
                        .setConfigType((e.getKey().equals(TopicConfigs.CLEANUP_POLICY)
                                ? DescribeConfigsResponse.ConfigType.LIST : DescribeConfigsResponse.ConfigType.LONG)
                                .id()));
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
            // AlterConfigs replaces the whole set: a retention left out goes back to none
            Integer seconds = 0;
            try {
                for (AlterConfigsRequestData.AlterableConfig c : res.configs()) {
                    seconds = retention(c.name(), c.value());
                }
                apply(tenant, res.resourceType(), res.resourceName(), seconds, request.validateOnly(), r);
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
            Integer seconds = null;
            try {
                if (res.resourceType() == ConfigResource.Type.GROUP.id()) {
                    alterGroup(tenant, res, request.validateOnly());
                    continue;
                }
                for (IncrementalAlterConfigsRequestData.AlterableConfig c : res.configs()) {
                    switch (c.configOperation()) {
                        case 0 -> seconds = retention(c.name(), c.value());  // SET
                        case 1 -> seconds = retention(c.name(), "-1");  // DELETE: back to the default
                        default -> throw new InvalidRequestException("only SET and DELETE apply to " + c.name());
                    }
                }
                if (seconds != null) {
                    AlterConfigsResponseData.AlterConfigsResourceResponse tmp =
                            new AlterConfigsResponseData.AlterConfigsResourceResponse();
                    apply(tenant, res.resourceType(), res.resourceName(), seconds, request.validateOnly(), tmp);
                    r.setErrorCode(tmp.errorCode()).setErrorMessage(tmp.errorMessage());
                }
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

    private static int retention(String name, String value) {
        if (!TopicConfigs.RETENTION_MS.equals(name)) {
            throw new InvalidConfigurationException("only retention.ms can be set on a Queen topic, not " + name);
        }
        return TopicConfigs.retentionSeconds(value == null ? "-1" : value);
    }

    private void apply(UUID tenant, byte type, String name, int seconds, boolean validateOnly,
            AlterConfigsResponseData.AlterConfigsResourceResponse r) throws Exception {
        if (type != ConfigResource.Type.TOPIC.id()) {
            throw new InvalidRequestException("only topic configs can be altered");
        }
        if (!Topics.valid(name) || (!validateOnly && !store.setRetention(tenant, name, seconds))
                || (validateOnly && topics.lookup(tenant, List.of(name), false).isEmpty())) {
            r.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
        }
    }
}
