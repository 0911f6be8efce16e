import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.SlidingWindows;
import org.apache.kafka.streams.kstream.Suppressed;
import org.apache.kafka.streams.state.BuiltInDslStoreSuppliers;

/**
 * Kafka Streams' own sliding windows on a topic, for the side-by-side comparison of
 * docs/kafka-migration.md (tests/support/kafka_streams_app.py runs it).
 *
 * <p>Usage: KafkaStreamsSlidingWindows BOOTSTRAP TOPIC RECORDS SIZE_MS GRACE_MS STATE_DIR
 *
 * <p>Creates TOPIC with one partition and writes to it, in order, the records of the file RECORDS
 * (one JSON object a line, {"key": ..., "ts": ms, "id": ..., "v": ...}): key = key, value = the
 * line, record timestamp = ts; the topic keeps them whatever their age (retention.ms = -1). Then runs
 * {@code groupByKey().windowedBy(SlidingWindows.ofTimeDifferenceAndGrace(size, grace))} with an
 * aggregate (count, sum of v, the ids) and {@code suppress(untilWindowCloses)} on it, and prints
 * each window it emits as one JSON line {"key", "start", "end", "n", "sum", "ids"} (bounds in ms,
 * both inclusive), until the last record of the file has been processed; then one line
 * {"dropped": n}, the sum of the tasks' dropped-records-total metric.
 */
public final class KafkaStreamsSlidingWindows {

    private KafkaStreamsSlidingWindows() {
    }

    /** A number or string field of one of the file's flat JSON objects. */
    static String field(String json, String name) {
        Matcher m = Pattern.compile("\"" + name + "\"\\s*:\\s*\"?([^\",}]*)").matcher(json);
        if (!m.find()) {
            throw new IllegalArgumentException("no field " + name + " in " + json);
        }
        return m.group(1).trim();
    }

    /** The aggregate "n sum ids" (ids separated by commas) with one more record. */
    static String add(String aggregate, String record) {
        String[] parts = aggregate.split(" ", -1);
        long n = Long.parseLong(parts[0]) + 1;
        long sum = Long.parseLong(parts[1]) + Long.parseLong(field(record, "v"));
        String ids = parts[2].isEmpty() ? field(record, "id") : parts[2] + "," + field(record, "id");
        return n + " " + sum + " " + ids;
    }

    static void produce(String bootstrap, String topic, List<String> lines) throws Exception {
        Properties admin = new Properties();
        admin.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (Admin client = Admin.create(admin)) {
            // Kept whatever the records' times: the broker's retention would delete those older than a week.
            client.createTopics(List.of(new NewTopic(topic, 1, (short) 1).configs(Map.of("retention.ms", "-1"))))
                .all().get();
        }
        Properties config = new Properties();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        try (KafkaProducer<String, String> producer =
                 new KafkaProducer<>(config, new StringSerializer(), new StringSerializer())) {
            List<Future<?>> sent = new ArrayList<>();
            for (String line : lines) {
                sent.add(producer.send(new ProducerRecord<>(topic, 0, Long.parseLong(field(line, "ts")),
                    field(line, "key"), line)));
            }
            for (Future<?> f : sent) {
                f.get();
            }
        }
    }

    public static void main(String[] args) throws Exception {
        String bootstrap = args[0];
        String topic = args[1];
        List<String> lines = Files.readAllLines(Path.of(args[2]));
        lines.removeIf(String::isBlank);
        long size = Long.parseLong(args[3]);
        long grace = Long.parseLong(args[4]);
        produce(bootstrap, topic, lines);

        String lastId = field(lines.get(lines.size() - 1), "id");
        CountDownLatch lastProcessed = new CountDownLatch(1);
        StreamsBuilder builder = new StreamsBuilder();
        KStream<String, String> records = builder.stream(topic, Consumed.with(Serdes.String(), Serdes.String()));
        records.groupByKey(Grouped.with(Serdes.String(), Serdes.String()))
            .windowedBy(SlidingWindows.ofTimeDifferenceAndGrace(Duration.ofMillis(size), Duration.ofMillis(grace)))
            .aggregate(() -> "0 0 ", (key, record, aggregate) -> add(aggregate, record),
                Materialized.with(Serdes.String(), Serdes.String()))
            .suppress(Suppressed.untilWindowCloses(Suppressed.BufferConfig.unbounded()))
            .toStream()
            .foreach((window, aggregate) -> {
                String[] parts = aggregate.split(" ", -1);
                System.out.println("{\"key\": \"" + window.key() + "\", \"start\": " + window.window().start()
                    + ", \"end\": " + window.window().end() + ", \"n\": " + parts[0] + ", \"sum\": " + parts[1]
                    + ", \"ids\": [" + parts[2] + "]}");
            });
        // Added after the aggregation: the source hands each record to it first.
        records.foreach((key, record) -> {
            if (field(record, "id").equals(lastId)) {
                lastProcessed.countDown();
            }
        });

        Properties config = new Properties();
        config.put(StreamsConfig.APPLICATION_ID_CONFIG, "sliding-windows-" + topic);
        config.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        config.put(StreamsConfig.STATE_DIR_CONFIG, args[5]);
        config.put(StreamsConfig.DSL_STORE_SUPPLIERS_CLASS_CONFIG, BuiltInDslStoreSuppliers.InMemoryDslStoreSuppliers.class);
        // No record cache: each update reaches suppress() when its record is processed.
        config.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
        config.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 1);
        config.put(StreamsConfig.consumerPrefix("auto.offset.reset"), "earliest");
        try (KafkaStreams streams = new KafkaStreams(builder.build(), config)) {
            streams.start();
            if (!lastProcessed.await(120, TimeUnit.SECONDS)) {
                throw new IllegalStateException("Kafka Streams did not process the last record within 120 s");
            }
            double dropped = 0;
            for (Map.Entry<MetricName, ? extends Metric> m : streams.metrics().entrySet()) {
                if (m.getKey().name().equals("dropped-records-total") && m.getKey().group().equals("stream-task-metrics")) {
                    dropped += ((Number) m.getValue().metricValue()).doubleValue();
                }
            }
            streams.close(Duration.ofSeconds(60));
            System.out.println("{\"dropped\": " + (long) dropped + "}");
        }
    }
}
