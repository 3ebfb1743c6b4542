exec(open('model.py').read().split("for q_len in (1,2,4):")[0])
import sys
for F in (10, 11, 12):
    for q_len in (1,2):
        w,n=run(q_len,'trunc',F); print(q_len,'trunc',F,'worst row %.4e at'%w[0],w[1],'outside',n, flush=True)
