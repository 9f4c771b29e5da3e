package dev.jooqoutbox.publisher;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP forwarder between a client and a broker that a test can cut (every connection through it is
 * dropped, and new ones are accepted and closed at once, like a broker that went away) and restore.
 * Its threads are daemons: a test that forgets to close it still lets the JVM exit.
 */
public final class TcpProxy implements AutoCloseable {

  private final ServerSocket server;
  private final String targetHost;
  private volatile int targetPort;
  private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
  private volatile boolean cut;

  public TcpProxy(String targetHost, int targetPort) throws IOException {
    this.targetHost = targetHost;
    this.targetPort = targetPort;
    this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    daemon("proxy-accept-" + port(), this::acceptLoop).start();
  }

  /** Forwards new connections to {@code port} from now on (for a server whose port comes later). */
  public void retarget(int port) {
    targetPort = port;
  }

  public int port() {
    return server.getLocalPort();
  }

  /** Drops every connection and refuses new ones until {@link #restore()}. */
  public void cut() {
    cut = true;
    sockets.forEach(TcpProxy::closeQuietly);
    sockets.clear();
  }

  public void restore() {
    cut = false;
  }

  @Override
  public void close() {
    cut();
    closeQuietly(server);
  }

  private void acceptLoop() {
    while (!server.isClosed()) {
      Socket client;
      try {
        client = server.accept();
      } catch (IOException e) {
        return; // closed
      }
      if (cut) {
        closeQuietly(client);
        continue;
      }
      try {
        Socket upstream = new Socket(targetHost, targetPort);
        sockets.add(client);
        sockets.add(upstream);
        daemon("proxy-up", () -> pump(client, upstream)).start();
        daemon("proxy-down", () -> pump(upstream, client)).start();
      } catch (IOException e) {
        closeQuietly(client);
      }
    }
  }

  private void pump(Socket from, Socket to) {
    byte[] buffer = new byte[16384];
    try (InputStream in = from.getInputStream();
        OutputStream out = to.getOutputStream()) {
      int n;
      while ((n = in.read(buffer)) >= 0) {
        out.write(buffer, 0, n);
      }
    } catch (IOException e) {
      // The other side or cut() closed the connection.
    } finally {
      closeQuietly(from);
      closeQuietly(to);
      sockets.remove(from);
      sockets.remove(to);
    }
  }

  private static Thread daemon(String name, Runnable body) {
    Thread thread = new Thread(body, name);
    thread.setDaemon(true);
    return thread;
  }

  private static void closeQuietly(AutoCloseable closeable) {
    try {
      closeable.close();
    } catch (Exception e) {
      // Already closed.
    }
  }
}
