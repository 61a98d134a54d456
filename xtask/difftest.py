#!/usr/bin/env python3
"""The TFLM oracle of `cargo xtask difftest`: runs a whole batch of models in one process.

  difftest.py JOBS.json RESULTS.jsonl

JOBS.json is a list of {"id": K, "model": PATH, "inputs": [PATH...], "outputs": [PATH...]}. For each job,
in order, the models' inputs are read from the raw little-endian files tinyaot's side wrote (dtype and
shape from TFLM's own input details), TFLM runs the model, and each output is written raw to the
given paths. An input file may hold several invocations' values one after the other (a stateful model): TFLM
then runs them in order on one interpreter, and each output file gets every invocation's. RESULTS.jsonl gets, per job, a line {"id": K, "start": true} before anything is tried and
{"id": K, "status": "ok"} or {"id": K, "status": "refused", "message": ...} after, flushed at once: when
TFLM kills the process (abort, segfault), the caller sees which job was running and restarts the batch
after it. TFLM's own messages (MicroPrintf writes to the C-level stderr) are captured per job and
become the refusal message. A Python exception in one job never stops the batch.
"""
import json
import os
import sys
import tempfile

import numpy as np
from tflite_micro.python.tflite_micro import runtime

ARENA = 1 << 20
# Exceptions that mean this driver is wrong (the runtime wrapper raises RuntimeError when TFLM fails).
DRIVER_BUGS = (TypeError, AttributeError, NameError, KeyError, FileNotFoundError, ImportError)


def tflm_messages(f):
    f.seek(0)
    text = f.read().decode(errors="replace")
    f.seek(0)
    f.truncate()
    # The wrapper prints an allocation report on failure too; keep the lines that say what is wrong.
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    return " | ".join(lines[:6])


def run_job(job):
    # Each input file holds one or more invocations' values, one after the other (a stateful model
    # runs several on one interpreter); each output file gets every invocation's.
    it = runtime.Interpreter.from_bytes(open(job["model"], "rb").read(), arena_size=ARENA)
    inputs = []
    steps = None
    for i, path in enumerate(job["inputs"]):
        d = it.get_input_details(i)
        data = np.fromfile(path, dtype=np.dtype(d["dtype"]))
        shape = [int(x) for x in d["shape"]]
        n = int(np.prod(shape))
        # The invocations: the first non-empty input's count (an empty one holds none).
        if steps is None and n > 0:
            steps = max(1, data.size // n)
        if data.size != n * (steps or 1):
            raise ValueError(f"input {i}: {data.size} elements in {path}, TFLM expects shape {shape} ({steps} invocations)")
        inputs.append((data, shape, n))
    steps = steps or 1
    outputs = [[] for _ in job["outputs"]]
    for step in range(steps):
        for i, (data, shape, n) in enumerate(inputs):
            it.set_input(data[step * n:(step + 1) * n].reshape(shape), i)
        it.invoke()
        for j in range(len(outputs)):
            outputs[j].append(np.ascontiguousarray(it.get_output(j)).tobytes())
    for j, path in enumerate(job["outputs"]):
        with open(path, "wb") as f:
            f.write(b"".join(outputs[j]))


def main():
    jobs = json.load(open(sys.argv[1]))
    results = open(sys.argv[2], "a")
    with tempfile.TemporaryFile() as err:
        saved = os.dup(2)
        for job in jobs:
            results.write(json.dumps({"id": job["id"], "start": True}) + "\n")
            results.flush()
            os.dup2(err.fileno(), 2)
            try:
                run_job(job)
                line = {"id": job["id"], "status": "ok"}
            except DRIVER_BUGS as e:  # this script's own mistake, not TFLM's answer: stop everything
                line = {"id": job["id"], "status": "driver-error", "message": f"{type(e).__name__}: {e}"[:500]}
            except Exception as e:  # any failure of TFLM is this model's refusal, never the batch's
                sys.stderr.flush()
                said = tflm_messages(err)
                message = f"{type(e).__name__}: {e}".strip()[:300]
                if said:
                    message += f" [TFLM: {said[:300]}]"
                line = {"id": job["id"], "status": "refused", "message": message}
            finally:
                os.dup2(saved, 2)
            err.seek(0)
            err.truncate()
            results.write(json.dumps(line) + "\n")
            results.flush()


if __name__ == "__main__":
    main()
