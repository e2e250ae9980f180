/**
 * The order of the HTTP request pipeline: every router handler registers through its {@link
 * io.queen.http.PipelineStage}, and the JAX-RS filters take their priority from {@link io.queen.http.FilterPriority}.
 */
package io.queen.http;
