package io.queen.kafka.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * One connection's requests of a coalesced key: the requests that arrive while a batch runs are the next batch, in
 * request order, each answered with its own answer; a batch that fails fails only its own requests.
 */
class CoalescedCallsTest {
    private static final KafkaCaller CALLER = new KafkaCaller("t", "client", "127.0.0.1", null, null);

    private final ExecutorService workers = Executors.newVirtualThreadPerTaskExecutor();

    @AfterEach
    void stop() {
        workers.shutdownNow();
    }

    private static KafkaCall<ApiMessage> call(String group) {
        return new KafkaCall<>(CALLER, (short) 8, new OffsetCommitRequestData().setGroupId(group));
    }

    /** The answer a test handler gives a call: its group id as the throttle time's digits. */
    private static OffsetCommitResponseData answerTo(KafkaCall<ApiMessage> c) {
        return new OffsetCommitResponseData().setThrottleTimeMs(
                Integer.parseInt(((OffsetCommitRequestData) c.request()).groupId()));
    }

    @Test
    void requestsThatArriveWhileABatchRunsAreServedTogetherInOrderEachWithItsAnswer() throws Exception {
        CountDownLatch firstRunning = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        List<List<String>> batches = new ArrayList<>();
        CoalescedCalls calls = new CoalescedCalls(batch -> {
            List<String> groups = new ArrayList<>();
            batch.forEach(c -> groups.add(((OffsetCommitRequestData) c.request()).groupId()));
            synchronized (batches) {
                batches.add(groups);
            }
            if (batches.size() == 1) {
                firstRunning.countDown();
                assertTrue(release.await(30, TimeUnit.SECONDS));
            }
            return batch.stream().map(c -> CompletableFuture.completedFuture(answerTo(c))).toList();
        }, workers);
        List<CompletableFuture<ApiMessage>> answers = new ArrayList<>();
        answers.add(calls.submit(call("1")));
        assertTrue(firstRunning.await(30, TimeUnit.SECONDS));
        for (int i = 2; i <= 6; i++) {
            answers.add(calls.submit(call(String.valueOf(i))));
        }
        release.countDown();
        for (int i = 0; i < answers.size(); i++) {
            assertEquals(i + 1, ((OffsetCommitResponseData) answers.get(i).get(30, TimeUnit.SECONDS)).throttleTimeMs());
        }
        assertEquals(List.of(List.of("1"), List.of("2", "3", "4", "5", "6")), batches);

        // the queue is idle again: the next request is a batch of its own
        assertEquals(7, ((OffsetCommitResponseData) calls.submit(call("7")).get(30, TimeUnit.SECONDS))
                .throttleTimeMs());
        assertEquals(List.of("7"), batches.get(2));
    }

    @Test
    void aFailedBatchFailsItsOwnRequestsAndTheNextBatchIsServed() throws Exception {
        CountDownLatch firstRunning = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CoalescedCalls calls = new CoalescedCalls(batch -> {
            String first = ((OffsetCommitRequestData) batch.get(0).request()).groupId();
            if (first.equals("1")) {
                firstRunning.countDown();
                assertTrue(release.await(30, TimeUnit.SECONDS));
                throw new IllegalStateException("the database went away");
            }
            if (first.equals("2")) {
                return List.of(CompletableFuture.completedFuture(answerTo(batch.get(0)))); // one answer short
            }
            return batch.stream().map(c -> CompletableFuture.completedFuture(answerTo(c))).toList();
        }, workers);
        CompletableFuture<ApiMessage> failed = calls.submit(call("1"));
        assertTrue(firstRunning.await(30, TimeUnit.SECONDS));
        CompletableFuture<ApiMessage> second = calls.submit(call("2"));
        CompletableFuture<ApiMessage> third = calls.submit(call("3"));
        release.countDown();
        assertEquals("the database went away", assertCause(failed));
        assertEquals("1 answers to 2 calls", assertCause(second));
        assertEquals("1 answers to 2 calls", assertCause(third));
        assertEquals(4, ((OffsetCommitResponseData) calls.submit(call("4")).get(30, TimeUnit.SECONDS))
                .throttleTimeMs());
    }

    private static String assertCause(CompletableFuture<ApiMessage> f) throws InterruptedException {
        try {
            f.get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            return e.getCause().getMessage();
        } catch (java.util.concurrent.TimeoutException e) {
            throw new AssertionError("no answer", e);
        }
        throw new AssertionError("answered, not failed");
    }
}
