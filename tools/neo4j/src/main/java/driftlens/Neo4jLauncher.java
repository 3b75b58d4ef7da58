package driftlens;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.connectors.HttpConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.harness.Neo4j;
import org.neo4j.harness.Neo4jBuilders;

/**
 * Starts Neo4j Community in this process with Bolt on 127.0.0.1 and authentication on, prints one line
 * {@code READY bolt://127.0.0.1:PORT} once it answers, and stops cleanly on SIGTERM or SIGINT.
 *
 * <p>Arguments: {@code --port N} (0 = any free port), {@code --dir PATH} (data folder, created when missing),
 * {@code --password-file PATH} (the password for user neo4j, so it never appears in a process listing).
 */
public final class Neo4jLauncher {
    private Neo4jLauncher() {}

    public static void main(String[] args) throws Exception {
        int port = 0;
        Path dir = null;
        Path passwordFile = null;
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--port" -> port = Integer.parseInt(args[i + 1]);
                case "--dir" -> dir = Path.of(args[i + 1]);
                case "--password-file" -> passwordFile = Path.of(args[i + 1]);
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        if (dir == null || passwordFile == null) {
            throw new IllegalArgumentException("usage: --dir PATH --password-file PATH [--port N]");
        }
        String password = Files.readString(passwordFile).strip();
        Files.createDirectories(dir);

        Neo4j server = Neo4jBuilders.newInProcessBuilder(dir)
                .withConfig(BoltConnector.listen_address, new SocketAddress("127.0.0.1", port))
                .withConfig(HttpConnector.enabled, false)
                .withConfig(GraphDatabaseSettings.auth_enabled, true)
                .withDisabledServer()
                .build();
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
