#!/bin/bash
# table.sh LOG...: the markdown table of erase-all.sh's RESULT lines (one row per disk, one column
# per method): "zeros" with the image's allocated MiB before → after, or "refused" when the real
# run exited 2 (and whether the dry run's exit status matched).
awk '
/^RESULT / {
  k = $2; m = $3
  for (i = 4; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
  if (!(k in seen)) { seen[k] = 1; rows[++nr] = k }
  if (!(m in mseen)) { mseen[m] = 1; cols[++nc] = m }
  same = (v["dry"] == v["real"]) ? "" : " (dry run exit " v["dry"] ")"
  if (v["real"] == 0) {
    zero = (v["nonzero_first4"] == 0 && v["nonzero_last4"] == 0) ? "zeros" : "DATA LEFT"
    used = (m == "auto") ? v["used"] ": " : ""
    cell[k, m] = used zero ", " int(v["host_alloc_before"] / 1048576) "→" int(v["after"] / 1048576) " MiB" same
  } else if (v["real"] == 2) {
    cell[k, m] = "refused" same
  } else {
    cell[k, m] = "FAILED (exit " v["real"] ")" same
  }
}
END {
  line = "| disk |"; sep = "|---|"
  for (c = 1; c <= nc; c++) { line = line " " cols[c] " |"; sep = sep "---|" }
  print line; print sep
  for (r = 1; r <= nr; r++) {
    line = "| " rows[r] " |"
    for (c = 1; c <= nc; c++) line = line " " cell[rows[r], cols[c]] " |"
    print line
  }
}' "$@"
