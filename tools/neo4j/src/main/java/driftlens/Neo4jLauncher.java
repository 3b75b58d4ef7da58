package driftlens;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.connectors.HttpConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.harness.Neo4j;
import org.neo4j.harness.Neo4jBuilder;
import org.neo4j.io.ByteUnit;
import org.neo4j.kernel.api.impl.index.LuceneSettings;
import org.neo4j.harness.Neo4jBuilders;

/**
 * Starts Neo4j Community in this process with Bolt on 127.0.0.1 and authentication on, prints one line
 * {@code READY bolt://127.0.0.1:PORT} once it answers, and stops cleanly on SIGTERM or SIGINT.
 *
 * <p>Arguments: {@code --port N} (0 = any free port), {@code --dir PATH} (data folder, created when missing),
 * {@code --password-file PATH} (the password for user neo4j, so it never appears in a process listing),
 * {@code --pagecache SIZE} (e.g. {@code 1g}; default: the harness's own, 8 MiB, sized for tests),
 * {@code --vector-population-buffer-mb MB} (Neo4j's internal {@code internal.dbms.index.vector.population_ram_buffer_size}).
 */
public final class Neo4jLauncher {
    private Neo4jLauncher() {}

    public static void main(String[] args) throws Exception {
        int port = 0;
        Path dir = null;
        Path passwordFile = null;
        String pagecache = null;
        Double vectorBufferMb = null;
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--port" -> port = Integer.parseInt(args[i + 1]);
                case "--dir" -> dir = Path.of(args[i + 1]);
                case "--password-file" -> passwordFile = Path.of(args[i + 1]);
                case "--pagecache" -> pagecache = args[i + 1];
                case "--vector-population-buffer-mb" -> vectorBufferMb = Double.parseDouble(args[i + 1]);
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        if (dir == null || passwordFile == null) {
            throw new IllegalArgumentException("usage: --dir PATH --password-file PATH [--port N]");
        }
        String password = Files.readString(passwordFile).strip();
        Files.createDirectories(dir);

        Neo4jBuilder builder = Neo4jBuilders.newInProcessBuilder(dir)
                .withConfig(BoltConnector.listen_address, new SocketAddress("127.0.0.1", port))
                .withConfig(HttpConnector.enabled, false)
                .withConfig(GraphDatabaseSettings.auth_enabled, true)
                .withDisabledServer();
        if (pagecache != null) {
            // The harness sizes the page cache for tests (8 MiB); a server holding a large graph needs it sized.
            builder = builder.withConfig(GraphDatabaseSettings.pagecache_memory, ByteUnit.parse(pagecache));
        }
        if (vectorBufferMb != null) {
            // Neo4j fills a vector index from the store with a 1 MB Lucene buffer and never merges while it does:
            // 100k chunk vectors came out as 30 segments, each searched in turn by every query.
            builder = builder.withConfig(LuceneSettings.vector_population_ram_buffer_size, vectorBufferMb);
        }
        Neo4j server = builder.build();
        // The harness creates user neo4j with the default password and "change required": set ours on the system
        // database, which is the documented way to manage users (ALTER USER).
        server.databaseManagementService()
                .database(GraphDatabaseSettings.SYSTEM_DATABASE_NAME)
                .executeTransactionally("ALTER USER neo4j SET PASSWORD $password CHANGE NOT REQUIRED",
                        java.util.Map.of("password", password));

        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.close();
            stopped.countDown();
        }));
        System.out.println("READY " + server.boltURI());
        System.out.flush();
        stopped.await();
    }
}
