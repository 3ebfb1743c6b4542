#!/usr/bin/env bash
# Session 43, call 7: the machine code of main's kernels at 26dccef (v136) and of its trace build with
# the softmax phase's stamps (diag/s43-v136-stamps, b791ca5, compiled here with -DMB_TRACE), for the
# instructions between the alternate scorer's REFIN and MAXED stamps (this toolkit has no SASS reader).
set -u
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader | tee $OUT/gpu.txt
for c in v136-stamps main-v136; do
    cuobjdump --dump-sass build-sass/$c.cubin > $OUT/sass-$c.txt 2>&1
    echo "$c: $(wc -l < $OUT/sass-$c.txt) lines"
done
(cd $OUT && tar -czf sass.tgz sass-*.txt && rm -f sass-*.txt)
