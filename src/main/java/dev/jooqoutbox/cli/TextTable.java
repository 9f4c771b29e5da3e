package dev.jooqoutbox.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/** A plain-text table with a header row: columns padded to their widest cell, numbers right. */
final class TextTable {

  private final List<String[]> rows = new ArrayList<>();
  private final boolean[] rightAligned;

  TextTable(String... headers) {
    rows.add(headers);
    rightAligned = new boolean[headers.length];
  }

  TextTable alignRight(int... columns) {
    for (int column : columns) {
      rightAligned[column] = true;
    }
    return this;
  }

  void add(Object... cells) {
    String[] row = new String[cells.length];
    for (int i = 0; i < cells.length; i++) {
      row[i] = String.valueOf(cells[i]);
    }
    rows.add(row);
  }

  void print(PrintWriter out) {
    int[] widths = new int[rightAligned.length];
    for (String[] row : rows) {
      for (int i = 0; i < row.length; i++) {
        widths[i] = Math.max(widths[i], row[i].length());
      }
    }
    for (String[] row : rows) {
      StringBuilder line = new StringBuilder();
      for (int i = 0; i < row.length; i++) {
        if (i > 0) {
          line.append("  ");
        }
        String pad = " ".repeat(widths[i] - row[i].length());
        boolean last = i == row.length - 1;
        line.append(rightAligned[i] ? pad + row[i] : last ? row[i] : row[i] + pad);
      }
      out.println(line);
    }
  }
}
