#!/usr/bin/env bash
# session 35, call 2: where does v127 hang? cuda-gdb on the hung process, the SASS, and a fenced variant.
set -u
. scripts/device-env.sh
mkdir -p "$OUT"; start=$SECONDS
echo "tools: $(command -v cuda-gdb compute-sanitizer cuobjdump nvdisasm | tr '\n' ' ')"; ls /usr/local/cuda/bin | tr '\n' ' '; echo
printf '{"cases":[{"name":"guard","batch":4,"q_len":4,"heads":16,"kv_len":1024,"num_kv_splits":1,"mode":"eager","warmup":1,"min_runs":1,"max_runs":2}]}' > "$OUT/guard.json"
timeout -k 5 -s INT 30 build-v127fs/mla-bench run --kernel sm90 --out "$OUT/g-f" "$OUT/guard.json" > "$OUT/g-f.log" 2>&1; echo "v127f guard: exit $? ($((SECONDS-start)) s)"; tail -3 "$OUT/g-f.log" | head -1
build-v127s/mla-bench run --kernel sm90 --out "$OUT/g" "$OUT/guard.json" > "$OUT/g.log" 2>&1 &
pid=$!; sleep 12
GDB=$(command -v cuda-gdb || echo /usr/local/cuda/bin/cuda-gdb)
if [ -x "$GDB" ]; then
  timeout -k 5 90 "$GDB" -batch -p $pid -ex "info cuda kernels" -ex "info cuda sms" -ex "info cuda warps" -ex "x/4i \$pc" > "$OUT/gdb.txt" 2>&1; echo "gdb: exit $?"
  head -c 6000 "$OUT/gdb.txt"; echo; grep -c . "$OUT/gdb.txt"
fi
kill -9 $pid; wait $pid 2>/dev/null
for B in build-main build-v127s; do cuobjdump --dump-sass -fun '_Z18decode_sm90_kernelILi64ELb1ELb0EEv14mb_decode_args14mb_first_units' $B/kernels/decode_sm90.o > "$OUT/sass-$B.txt" 2>&1; echo "$B sass: $(wc -l < "$OUT/sass-$B.txt") lines"; done
cd "$OUT" && tar -czf probe2.tgz * && find . -maxdepth 1 ! -name probe2.tgz ! -name . -exec rm -rf {} +; echo "done ($((SECONDS-start)) s)"
