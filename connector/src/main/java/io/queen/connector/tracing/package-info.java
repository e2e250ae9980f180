/** OpenTelemetry producer and consumer spans of the connector's messages (optional: used when on the class path). */
package io.queen.connector.tracing;
