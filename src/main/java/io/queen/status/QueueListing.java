package io.queen.status;

import io.queen.api.Paging;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.core.Response;
import java.sql.SQLException;
import java.util.UUID;

/**
 * The queue listing served by {@code GET /api/v1/status/queues} and {@code /api/v1/resources/queues}: newest
 * first, filtered by namespace, task and name substring, one page from a {@link StatusSnapshots} snapshot keyed by
 * the route and every parameter. Stateless, thread-safe.
 */
@ApplicationScoped
class QueueListing {
    static final int DEFAULT_LIMIT = 100;

    @Inject StatusStore store;
    @Inject StatusConfig limits;
    @Inject StatusSnapshots snapshots;

    /** The page for the raw query parameters ({@code search} null where the route has none); 400 naming a bad one. */
    Response serve(UUID tenant, String route, String namespace, String task, String search, String limitParam,
            String offsetParam) throws SQLException {
        Paging paging = Paging.of(limitParam, offsetParam, DEFAULT_LIMIT, limits.maxLimit());
        String ns = StatusJson.filter(namespace, "namespace");
        String tk = StatusJson.filter(task, "task");
        String sr = StatusJson.filter(search, "search");
        return snapshots.serve(tenant, StatusSnapshots.key(route, ns, tk, sr, paging.limit(), paging.offset()),
                () -> StatusJson.queuePage(
                store.queues(tenant, null, ns, tk, sr, paging.limit(), paging.offset()), paging));
    }
}
