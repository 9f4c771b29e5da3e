package dev.jooqoutbox.bench;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Predicate;

/**
 * Draws {@code chart.svg} from the results: one panel per figure group, a horizontal bar per figure
 * at its median with a whisker from min to max, and a last panel of the ratios against their goals
 * (the goal as a red tick). Hand-written SVG; no plotting library.
 */
final class SvgChart {

  private static final int WIDTH = 980;
  private static final int LABEL_WIDTH = 400;
  private static final int BAR_AREA = 440;
  private static final int ROW = 17;
  private static final String[] COLORS = {"#4e79a7", "#f28e2b", "#59a14f", "#b07aa1"};

  private record Bar(String label, double median, double min, double max, Double goal, int color) {}

  private record Panel(String title, String unit, List<Bar> bars) {}

  private SvgChart() {}

  static void write(JsonNode root, Path file) {
    List<Panel> panels = panels(root);
    StringBuilder body = new StringBuilder();
    int y = 40;
    for (Panel p : panels) {
      if (p.bars().isEmpty()) {
        continue;
      }
      y = panel(body, p, y) + 24;
    }
    StringBuilder svg = new StringBuilder();
    svg.append(
            String.format(
                Locale.ROOT,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\""
                    + " viewBox=\"0 0 %d %d\" font-family=\"DejaVu Sans, Arial, sans-serif\""
                    + " font-size=\"11\">\n",
                WIDTH,
                y,
                WIDTH,
                y))
        .append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n")
        .append(
            "<text x=\"10\" y=\"22\" font-size=\"15\" font-weight=\"bold\">jooq-outbox"
                + " benchmarks: bar = median, whisker = min..max over repetitions</text>\n")
        .append(body)
        .append("</svg>\n");
    try {
      Files.createDirectories(file.getParent());
      Files.writeString(file, svg.toString());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
  }

  private static List<Panel> panels(JsonNode root) {
    JsonNode dbs = root.path("databases");
    List<Panel> panels = new ArrayList<>();
    panels.add(
        new Panel(
            "(1) Write: committed business transactions per second, 4 writers",
            "tx/s",
            figures(dbs, "write", id -> id.startsWith("write."))));
    panels.add(
        new Panel(
            "(1) PostgreSQL NOTIFY on/off: Outbox.write transactions per second",
            "tx/s",
            figures(dbs, "notify", id -> true)));
    panels.add(
        new Panel(
            "(2) Drain with a no-op handler, 1000 aggregates, batch 100",
            "msg/s",
            figures(dbs, "drain", id -> id.endsWith(".agg1000.b100"))));
    panels.add(
        new Panel(
            "(2) Drain on PostgreSQL by batch size: relay, its repository calls, plain SQL",
            "msg/s",
            figures(
                onlyPostgres(dbs), "drain", id -> id.contains(".agg1000.") && !id.contains("4."))));
    panels.add(
        new Panel(
            "(2) Drain, 10 hot aggregates (backlog 100,000 on PostgreSQL, 20,000 on the others)",
            "msg/s",
            figures(dbs, "drain", id -> id.contains(".agg10.") && !id.contains("4."))));
    panels.add(
        new Panel(
            "(3) Claim latency (batch 100) against sent rows awaiting purge",
            "ms",
            figures(dbs, "claim", id -> true)));
    panels.add(
        new Panel(
            "(4) PostgreSQL: commit to handler start at a steady rate",
            "ms",
            figures(onlyPostgres(dbs), "latency", id -> !id.endsWith(".rate"))));
    panels.add(
        new Panel(
            "(4) MariaDB and SQLite: commit to handler start, polling",
            "ms",
            figures(withoutPostgres(dbs), "latency", id -> !id.endsWith(".rate"))));
    panels.add(
        new Panel(
            "(5) Backlog drain against gruelbox transaction-outbox (same PostgreSQL, same run)",
            "msg/s",
            figures(dbs, "gruelbox", id -> true)));
    panels.add(
        new Panel(
            "(6) One relay draining a large backlog in a -Xmx128m JVM",
            "MiB",
            figures(dbs, "memory", id -> !id.endsWith("drain_rate"))));
    panels.add(
        new Panel(
            "(7) PostgreSQL: drain with and without a REPEATABLE READ transaction held open",
            "msg/s",
            figures(
                dbs, "horizon", id -> id.startsWith("horizon.drain.") && id.endsWith(".rate"))));
    panels.add(
        new Panel(
            "Goals: share of each goal reached (red tick = goal met; shown up to 3)",
            "x goal",
            ratios(dbs)));
    return panels;
  }

  private static List<Bar> figures(JsonNode dbs, String group, Predicate<String> which) {
    List<Bar> bars = new ArrayList<>();
    int color = 0;
    for (String db : ResultsFile.DB_ORDER) {
      JsonNode g = dbs.path(db).path("groups").path(group);
      if (g.isMissingNode()) {
        continue;
      }
      for (JsonNode f : g.path("figures")) {
        String id = f.path("id").asText();
        if (!which.test(id)) {
          continue;
        }
        JsonNode goal = f.path("goal");
        bars.add(
            new Bar(
                db + ": " + f.path("label").asText(),
                f.path("median").asDouble(),
                f.path("min").asDouble(),
                f.path("max").asDouble(),
                goal.isObject() ? goal.path("threshold").asDouble() : null,
                color % COLORS.length));
      }
      color++;
    }
    return bars;
  }

  private static JsonNode withoutPostgres(JsonNode dbs) {
    var copy = ((com.fasterxml.jackson.databind.node.ObjectNode) dbs).deepCopy();
    copy.remove("postgresql");
    return copy;
  }

  private static JsonNode onlyPostgres(JsonNode dbs) {
    var copy = ((com.fasterxml.jackson.databind.node.ObjectNode) dbs).deepCopy();
    copy.retain("postgresql");
    return copy;
  }

  /**
   * Every goal as the share of it reached: value / goal for "at least" goals, goal / value for "at
   * most" goals, so 1 (the red tick) means met whatever the unit. Shown up to 3.
   */
  private static List<Bar> ratios(JsonNode dbs) {
    List<Bar> bars = new ArrayList<>();
    int color = 0;
    for (String db : ResultsFile.DB_ORDER) {
      JsonNode groups = dbs.path(db).path("groups");
      if (groups.isMissingNode()) {
        continue;
      }
      for (JsonNode g : groups) {
        List<JsonNode> withGoals = new ArrayList<>();
        g.path("figures").forEach(withGoals::add);
        g.path("ratios").forEach(withGoals::add);
        for (JsonNode r : withGoals) {
          JsonNode goal = r.path("goal");
          if (!goal.isObject()) {
            continue;
          }
          boolean atLeast = goal.path("atLeast").asBoolean();
          double t = goal.path("threshold").asDouble();
          bars.add(
              new Bar(
                  db
                      + ": "
                      + r.path("id").asText()
                      + " = "
                      + Recorder.format(r.path("median").asDouble())
                      + " (goal "
                      + goal.path("text").asText()
                      + ")",
                  attainment(r.path("median").asDouble(), t, atLeast),
                  attainment(r.path(atLeast ? "min" : "max").asDouble(), t, atLeast),
                  attainment(r.path(atLeast ? "max" : "min").asDouble(), t, atLeast),
                  1.0,
                  color % COLORS.length));
        }
      }
      color++;
    }
    return bars;
  }

  private static double attainment(double value, double goal, boolean atLeast) {
    double a = atLeast ? value / goal : goal / value;
    return Double.isFinite(a) ? Math.min(a, 3) : 3;
  }

  private static int panel(StringBuilder svg, Panel p, int top) {
    double scale = 0;
    for (Bar b : p.bars()) {
      scale = Math.max(scale, finite(b.max()));
      scale = Math.max(scale, finite(b.median()));
      if (b.goal() != null) {
        scale = Math.max(scale, b.goal());
      }
    }
    scale = scale <= 0 ? 1 : scale * 1.05;
    svg.append(
        String.format(
            Locale.ROOT,
            "<text x=\"10\" y=\"%d\" font-size=\"13\" font-weight=\"bold\">%s</text>\n",
            top,
            escape(p.title() + " [" + p.unit() + "]")));
    int y = top + 10;
    int x0 = LABEL_WIDTH + 10;
    for (Bar b : p.bars()) {
      double w = finite(b.median()) / scale * BAR_AREA;
      svg.append(
          String.format(
              Locale.ROOT,
              "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>\n",
              LABEL_WIDTH,
              y + 12,
              escape(shorten(b.label(), 66))));
      svg.append(
          String.format(
              Locale.ROOT,
              "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>\n",
              x0,
              y + 3,
              w,
              ROW - 5,
              COLORS[b.color()]));
      double xMin = x0 + finite(b.min()) / scale * BAR_AREA;
      double xMax = x0 + finite(b.max()) / scale * BAR_AREA;
      int mid = y + 3 + (ROW - 5) / 2;
      svg.append(
          String.format(
              Locale.ROOT,
              "<path d=\"M%.1f %dH%.1fM%.1f %dV%dM%.1f %dV%d\" stroke=\"#222\" fill=\"none\"/>\n",
              xMin,
              mid,
              xMax,
              xMin,
              mid - 4,
              mid + 4,
              xMax,
              mid - 4,
              mid + 4));
      if (b.goal() != null) {
        double xg = x0 + b.goal() / scale * BAR_AREA;
        svg.append(
            String.format(
                Locale.ROOT,
                "<path d=\"M%.1f %dV%d\" stroke=\"#d62728\" stroke-width=\"2.5\"/>\n",
                xg,
                y + 1,
                y + ROW - 1));
      }
      svg.append(
          String.format(
              Locale.ROOT,
              "<text x=\"%.1f\" y=\"%d\">%s</text>\n",
              Math.max(xMax, x0 + w) + 6,
              y + 12,
              escape(Recorder.format(b.median()))));
      y += ROW;
    }
    return y;
  }

  private static double finite(double v) {
    return Double.isFinite(v) ? v : 0;
  }

  private static String shorten(String s, int max) {
    return s.length() <= max ? s : s.substring(0, max - 1) + "…";
  }

  private static String escape(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }
}
