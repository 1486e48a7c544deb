#!/usr/bin/env bash
# Packs what the device bench needs on a lent GPU machine that has Python but no Node or browser
# (docs/measured.md, "The device bench"): Debian's Chromium with the libraries ldd lists for it (not
# glibc's or libstdc++, which the machine has) and NSS's modules, and the built page
# (scripts/build-device-bench.mjs), as one tar stream split into parts of PART_MB (default 41) that each
# fit in one call beside the working tree. Unpack there with:
#   cat part.* | tar -xf - && tar -xJf gpub.tar.xz && tar -xJf page.tar.xz
# then run bench/browser/device_bench.py --dist device-bench --chromium gpub/chromium/chromium
#   --lib-path gpub/lib:gpub/chromium --out $OUT (with VK_ICD_FILENAMES naming the NVIDIA Vulkan driver's JSON).
# Usage: scripts/pack-device-bench.sh OUTDIR   (xz -9 of about 360 MB: a few minutes)
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=$(realpath -m "${1:?usage: scripts/pack-device-bench.sh OUTDIR}")
PART_MB=${PART_MB:-41}
CHROMIUM_DIR=${CHROMIUM_DIR:-/usr/lib/chromium}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/gpub/chromium/locales" "$WORK/gpub/lib" "$OUT"
for f in chromium chrome_crashpad_handler icudtl.dat resources.pak chrome_100_percent.pak snapshot_blob.bin \
  v8_context_snapshot.bin libEGL.so libGLESv2.so libvulkan.so.1 libvk_swiftshader.so vk_swiftshader_icd.json; do
  cp "$CHROMIUM_DIR/$f" "$WORK/gpub/chromium/"
done
cp "$CHROMIUM_DIR/locales/en-US.pak" "$WORK/gpub/chromium/locales/"
ldd "$CHROMIUM_DIR/chromium" | awk '/=>/ {print $3}' |
  grep -vE '/(libc|libm|libpthread|libresolv|libdl|librt|libgcc_s|libstdc\+\+)\.so|ld-linux' |
  xargs -I{} cp -L {} "$WORK/gpub/lib/"
# NSS loads these by name at run time (ldd does not list them).
for f in libsoftokn3 libfreebl3 libfreeblpriv3 libnssckbi libnssdbm3; do
  cp -L /usr/lib/x86_64-linux-gnu/$f.so "$WORK/gpub/lib/" 2>/dev/null || true
  cp -L /usr/lib/x86_64-linux-gnu/$f.chk "$WORK/gpub/lib/" 2>/dev/null || true
done
node scripts/build-device-bench.mjs "$WORK/device-bench"
tar -C "$WORK" -cf - gpub | xz -T2 -9 > "$WORK/gpub.tar.xz"
tar -C "$WORK" -cJf "$WORK/page.tar.xz" device-bench
rm -f "$OUT"/part.*
(cd "$WORK" && tar -cf - gpub.tar.xz page.tar.xz) | split -b "${PART_MB}M" - "$OUT/part."
ls -l "$OUT"
