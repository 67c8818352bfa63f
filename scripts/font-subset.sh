#!/bin/sh
# Makes the DejaVu Sans subsets that report.html embeds (src/report/fonts/), so a browser draws
# chart text in the font its label boxes were measured with. Needs fonttools with brotli
# (pip install fonttools brotli). Run again when the dejavu crate's version changes.
set -eu
ttf=$(ls -d "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/dejavu-2.37.0/assets/dejavu-fonts-ttf-2.37/ttf | head -n1)
out=$(dirname "$0")/../src/report/fonts
# Latin-1, Greek (µ is U+00B5; α, σ), general punctuation (– — · … ‰), super/subscripts,
# arrows and the few maths signs the charts print (− ≈ ≠ ≤ ≥ ∞).
unicodes="U+0020-007E,U+00A0-00FF,U+0391-03C9,U+2010-2027,U+2030-2044,U+2070-209F,U+2190-2199,U+2212-2215,U+221E,U+2248,U+2260-2265"
for face in DejaVuSans:dejavu-sans DejaVuSans-Bold:dejavu-sans-bold; do
  pyftsubset "$ttf/${face%%:*}.ttf" --unicodes="$unicodes" --flavor=woff2 --no-hinting \
    --desubroutinize --legacy-kern --layout-features=kern \
    --output-file="$out/${face#*:}-subset.woff2"
done
