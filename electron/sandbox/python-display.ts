/**
 * `display(table)` for `run_python` code, in both runtimes. Code interpreters teach models to end
 * an analysis with `display(df)` (Jupyter's habit); a printed DataFrame is only text, cut at a few
 * rows and hard to read in a chat. Here `display` saves the table as a CSV file under `out/`, which
 * the chat keeps and shows as a table (chip, canvas, Files panel, an MCP `resource_link`), and
 * prints the first rows so the model reads them too. It needs no pandas: a list of dicts or rows,
 * or a dict of columns, works in Pyodide's standard library.
 *
 * Defined into the code's globals before it runs (compiled per run: a few hundred microseconds,
 * and nothing of it outlives the run). Written without f-string nesting or walrus so the same text
 * compiles on every Python the runtimes use (3.11+).
 */
export const PYTHON_DISPLAY_SOURCE = String.raw`def display(obj, name=None, columns=None):
    """Show a table to the user: a pandas DataFrame or Series, a list of dicts, a list of rows
    (the first row is the header unless columns= is given) or a dict of columns. It is saved as
    out/<name>.csv, which the chat shows as a table, and its first rows are printed."""
    import csv, os, re
    base = re.sub(r"[^a-z0-9]+", "-", str(name or "").lower()).strip("-")[:60] or "table"
    os.makedirs("out", exist_ok=True)
    path = "out/" + base + ".csv"
    if name is None or os.path.exists(path):
        n = 1
        while os.path.exists("out/%s-%d.csv" % (base, n)):
            n += 1
        path = "out/%s-%d.csv" % (base, n)
    if hasattr(obj, "to_frame") and not hasattr(obj, "columns"):
        obj = obj.to_frame()
    if hasattr(obj, "to_csv") and hasattr(obj, "columns"):
        # A RangeIndex is only row numbers: the CSV (and the table) leaves it out; a named index
        # (a groupby's keys) is a column of the result.
        keep_index = type(obj.index).__name__ != "RangeIndex" or obj.index.name is not None
        obj.to_csv(path, index=keep_index)
        shape = (len(obj), len(obj.columns) + (obj.index.nlevels if keep_index else 0))
        text = obj.to_string(max_rows=20, max_cols=20)
    else:
        if isinstance(obj, dict):
            header = [str(k) for k in obj]
            cols = [list(v) if isinstance(v, (list, tuple)) else [v] for v in obj.values()]
            height = max([len(c) for c in cols] or [0])
            rows = [[c[i] if i < len(c) else "" for c in cols] for i in range(height)]
        else:
            items = list(obj)
            if items and all(isinstance(r, dict) for r in items):
                keys = []
                for r in items:
                    for k in r:
                        if k not in keys:
                            keys.append(k)
                header = [str(k) for k in keys]
                rows = [[r.get(k, "") for k in keys] for r in items]
            else:
                rows = [list(r) if isinstance(r, (list, tuple)) else [r] for r in items]
                if columns is None and rows:
                    header, rows = [str(c) for c in rows[0]], rows[1:]
                else:
                    header = []
        if columns is not None:
            header = [str(c) for c in columns]
        with open(path, "w", newline="", encoding="utf-8") as f:
            w = csv.writer(f)
            if header:
                w.writerow(header)
            w.writerows(rows)
        shape = (len(rows), max([len(header)] + [len(r) for r in rows]))
        shown = ([header] if header else []) + [["" if v is None else str(v) for v in r] for r in rows[:20]]
        widths = [max(len(r[i]) if i < len(r) else 0 for r in shown) for i in range(shape[1])]
        text = "\n".join("  ".join((r[i] if i < len(r) else "").ljust(min(widths[i], 40))[:40] for i in range(shape[1])).rstrip() for r in shown)
        if len(rows) > 20:
            text += "\n... (%d more rows)" % (len(rows) - 20)
    print(text)
    print("[shown to the user as a table: %s, %d row%s x %d column%s]" % (
        path, shape[0], "" if shape[0] == 1 else "s", shape[1], "" if shape[1] == 1 else "s"))
    return path
`;
