package dev.jooqoutbox.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.jooqoutbox.OutboxAdmin;
import dev.jooqoutbox.OutboxStats;
import dev.jooqoutbox.testing.TestDatabase;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.logging.Level;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;

/**
 * The console's page in a real browser (headless Chromium, Debian's {@code chromium} and {@code
 * chromium-driver}) on a real database: every page loads with no error in the browser's console;
 * the numbers shown are the ones {@link OutboxAdmin} returns; requeue, resolve, pause and resume
 * from the page change the database; markup in what the database holds renders as text and runs
 * nothing. Screenshots of each page go to {@code target/console-screenshots}. A subclass may serve
 * the page otherwise ({@link #serve}): in a servlet container, under a path.
 */
abstract class ConsoleBrowserContract extends ConsoleFixture {

  private static final String SCRIPT =
      "<script>window.__xss = 1</script><img src=x onerror=\"window.__xss = 2\">";
  private static final Path SHOTS = Path.of("target", "console-screenshots");

  private OutboxAdmin admin;
  private OutboxConsole console;
  private ChromeDriver browser;

  ConsoleBrowserContract(TestDatabase.Kind kind) {
    super(kind);
  }

  @BeforeEach
  void startConsoleAndBrowser() {
    File chromium = new File(env("OUTBOX_TEST_CHROMIUM", "/usr/bin/chromium"));
    File driver = new File(env("OUTBOX_TEST_CHROMEDRIVER", "/usr/bin/chromedriver"));
    if (!chromium.canExecute() || !driver.canExecute()) {
      String message = "no Chromium at " + chromium + " with its driver at " + driver;
      if ("required".equals(System.getenv("OUTBOX_TEST_BROWSER"))) {
        Assertions.fail(message + " and OUTBOX_TEST_BROWSER=required");
      }
      Assumptions.abort(message + "; set OUTBOX_TEST_BROWSER=required to fail instead");
    }
    admin = OutboxAdmin.create(db.dsl(), clock);
    ChromeOptions options = new ChromeOptions();
    options.setBinary(chromium);
    options.addArguments(
        "--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,900");
    LoggingPreferences logs = new LoggingPreferences();
    logs.enable(LogType.BROWSER, Level.ALL);
    options.setCapability("goog:loggingPrefs", logs);
    ChromeDriverService service =
        new ChromeDriverService.Builder().usingDriverExecutable(driver).build();
    browser = new ChromeDriver(service, options);
  }

  @AfterEach
  void stop() throws Exception {
    try {
      if (browser != null) {
        browser.quit();
      }
    } finally {
      stopServing();
    }
  }

  /**
   * Serves the console over {@code admin} with actions on, and returns the address an operator
   * opens first: here the CLI's console, on the JDK's server, at the address it prints.
   */
  String serve(OutboxAdmin admin) throws Exception {
    console = OutboxConsole.builder(admin).actions(true).start();
    return console.url();
  }

  /** The page's own address, with its trailing slash. */
  String base() {
    return "http://127.0.0.1:" + console.port() + "/";
  }

  void stopServing() throws Exception {
    if (console != null) {
      console.close();
    }
  }

  /** The name screenshots carry besides the page's and the database's. */
  String shotSuffix() {
    return "";
  }

  private static String env(String name, String otherwise) {
    String value = System.getenv(name);
    return value == null || value.isBlank() ? otherwise : value;
  }

  @Test
  void everyPageShowsWhatTheAdminReturnsActsOnTheDatabaseAndRendersMarkupAsText() throws Exception {
    // The messages the fixture claims are rows (ConsoleFixture); acct-2 is written with Outbox.
    clock.advance(Duration.ofNanos(123_456_789)); // times the page must show to the second
    String first = writeRow("acct-1", "orders");
    write("acct-2", "orders");
    writeRow("<b>acct-3</b>", "payments");
    deadLetterNext("payments", SCRIPT);
    deadLetterNext("orders", "connection refused");
    String unknown = writeRow("acct-4", "payments");
    unknownNext("payments", "ch_42");

    browser.get(serve(admin));
    WebElement orders = row("#topics", "orders");
    OutboxStats stats = admin.statsByTopic().get("orders");
    assertThat(cells(orders))
        .startsWith(
            "orders",
            String.valueOf(stats.pending()),
            String.valueOf(stats.leased()),
            String.valueOf(stats.unknown()),
            String.valueOf(stats.dead()));
    screenshot("overview");
    assertThat(browser.findElement(By.id("counts-at")).getText())
        .as("times to the second")
        .matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ");

    // Pause from the form, resume from the topic's row.
    browser.findElement(By.id("pause-topic")).sendKeys("orders");
    browser.findElement(By.cssSelector("#pause-form button")).click();
    await().atMost(Duration.ofSeconds(10)).until(() -> admin.pausedTopics().containsKey("orders"));
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> cells(row("#topics", "orders")).get(7).startsWith("paused since"));
    row("#topics", "orders").findElement(By.tagName("button")).click();
    await().atMost(Duration.ofSeconds(10)).until(() -> admin.pausedTopics().isEmpty());

    browser.get(base() + "#dead");
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> browser.findElements(By.cssSelector("#dead-letters tbody tr")).size() == 2);
    WebElement xss = row("#dead-letters", "<b>acct-3</b>");
    assertThat(xss.getText()).contains(SCRIPT);
    assertThat(cells(xss))
        .as("times to the second")
        .anyMatch(c -> c.matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ"))
        .noneMatch(c -> c.matches(".*\\d\\d:\\d\\d:\\d\\d\\.\\d+Z.*"));
    assertThat(browser.findElements(By.cssSelector("#dead-letters img, #dead-letters b")))
        .as("markup rendered as elements")
        .isEmpty();
    assertThat(((JavascriptExecutor) browser).executeScript("return window.__xss === undefined"))
        .as("no script ran")
        .isEqualTo(true);
    screenshot("dead-letters");
    row("#dead-letters", "acct-1").findElement(By.cssSelector("input[type=checkbox]")).click();
    browser.findElement(By.id("requeue-selected")).click();
    await().atMost(Duration.ofSeconds(10)).until(() -> admin.deadCount() == 1);
    assertThat(admin.message(first).orElseThrow().deadAt()).isNull();

    browser.get(base() + "#unknown");
    WebElement outcome = row("#unknown-outcomes", unknown);
    assertThat(cells(outcome)).contains("ch_42");
    screenshot("unknown-outcomes");
    outcome.findElements(By.tagName("button")).get(0).click(); // sent
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> admin.message(unknown).orElseThrow().sentAt() != null);

    browser.get(base() + "#message");
    browser.findElement(By.id("message-id")).sendKeys(unknown);
    browser.findElement(By.cssSelector("#message-form button")).click();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> browser.findElement(By.id("message-state")).getText().contains("SENT"));
    assertThat(browser.findElement(By.id("message-state")).getText())
        .doesNotContain("payload")
        .contains("source: " + HEADER_MARKUP);
    assertThat(browser.findElements(By.cssSelector("#message-state img"))).isEmpty();
    screenshot("message");

    List<LogEntry> errors =
        browser.manage().logs().get(LogType.BROWSER).getAll().stream()
            .filter(e -> e.getLevel().intValue() >= Level.WARNING.intValue())
            .toList();
    assertThat(errors).as("the browser's console").isEmpty();
  }

  /** The row of the table {@code table} whose text holds {@code text}, once it shows. */
  private WebElement row(String table, String text) {
    return await()
        .atMost(Duration.ofSeconds(10))
        .ignoreExceptions()
        .until(
            () ->
                browser.findElements(By.cssSelector(table + " tbody tr")).stream()
                    .filter(r -> r.getText().contains(text))
                    .findFirst()
                    .orElse(null),
            r -> r != null);
  }

  private static List<String> cells(WebElement row) {
    return row.findElements(By.tagName("td")).stream().map(WebElement::getText).toList();
  }

  private void screenshot(String name) throws Exception {
    Files.createDirectories(SHOTS);
    File shot = ((TakesScreenshot) browser).getScreenshotAs(OutputType.FILE);
    Files.copy(
        shot.toPath(),
        SHOTS.resolve(name + "-" + kind.name().toLowerCase() + shotSuffix() + ".png"),
        StandardCopyOption.REPLACE_EXISTING);
  }
}
