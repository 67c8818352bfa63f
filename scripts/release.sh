#!/usr/bin/env bash
# Release build into target/release-files/: the man pages and completions, a stripped static
# x86_64-unknown-linux-musl binary when that target is installed (rustup target add
# x86_64-unknown-linux-musl; else the glibc build is packaged), a .deb when cargo-deb is
# installed (cargo install cargo-deb), packaged from [package.metadata.deb] in Cargo.toml with
# its binary stripped, and SHA256SUMS of the binary and the .deb. Prints what it built and what
# it skipped.
set -euo pipefail
cd "$(dirname "$0")/.."

musl=x86_64-unknown-linux-musl
files=target/release-files
rm -rf "$files"
mkdir -p "$files/man" "$files/completions"

if rustup target list --installed 2>/dev/null | grep -qx "$musl"; then
    target=(--target "$musl")
    bin=target/$musl/release/ssdfade
else
    echo "no static binary: the $musl target is not installed (rustup target add $musl)"
    target=()
    bin=target/release/ssdfade
fi
cargo build --release --locked "${target[@]}"
version=$("$bin" --version | cut -d' ' -f2)
dist="$files/ssdfade-$version-$(uname -m)-linux${target:+-musl}"
strip -o "$dist" "$bin"
echo "binary: $dist ($(du -h "$dist" | cut -f1), unstripped $(du -h "$bin" | cut -f1))"
ldd "$dist" 2>&1 | sed 's/^/  ldd: /' || true

"$bin" man --out-dir "$files/man" > /dev/null
gzip -9n "$files"/man/*.1
"$bin" completions bash > "$files/completions/ssdfade"
"$bin" completions zsh > "$files/completions/_ssdfade"
"$bin" completions fish > "$files/completions/ssdfade.fish"
echo "man pages ($(ls "$files/man" | wc -l)) and completions: $files"

sums=("$(basename "$dist")")
if cargo deb --version > /dev/null 2>&1; then
    deb=$(cargo deb --no-build --strip "${target[@]}" | tail -n 1)
    cp "$deb" "$files/"
    sums+=("$(basename "$deb")")
    echo "package: $files/$(basename "$deb") ($(du -h "$deb" | cut -f1))"
    dpkg-deb --field "$deb" Depends Recommends Suggests | sed 's/^/  /'
else
    echo "no .deb: cargo-deb is not installed (cargo install cargo-deb)"
fi
(cd "$files" && sha256sum "${sums[@]}" > SHA256SUMS)
echo "checksums: $files/SHA256SUMS"
