#!/usr/bin/env python3
"""EchoLab's reference scorer (protocol 1, docs/scorers.md): the AEC Challenge's AECMOS.

Each request's loopback, mic and output go to speechmos' AECMOS model with the stretch's talk
type as its scenario marker: the 48 kHz model for stretches at 48 kHz, the 16 kHz one (the files
resampled by librosa, as speechmos reads them) otherwise. The model reads at most 20 s: a longer
stretch is scored in consecutive pieces of at most 20 s and their scores averaged by length.
"""
import hashlib
import importlib.metadata
import json
import math
import os
import sys

try:
    import librosa
    import numpy
    import onnxruntime
    from speechmos import aecmos
except ImportError as error:     # said on the first request, as the reason the scores are missing
    missing = f"AECMOS is not installed ({error.name} missing): run `make scorers`"
    for line in sys.stdin:
        print(json.dumps({"id": json.loads(line).get("id"), "error": missing}), flush=True)
    sys.exit(0)

MAX_SECONDS = 20
models = {}


def model_for(sample_rate):
    name = "aecmos_48kHz" if sample_rate == 48000 else "aecmos_16kHz"
    if name not in models:
        model = aecmos.AECMOS(name)
        # One thread: EchoLab runs one scorer per worker (--jobs), and the scores must not depend
        # on how many cores the machine has.
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = options.inter_op_num_threads = 1
        model.ort_session = onnxruntime.InferenceSession(model.model_path, options, providers=["CPUExecutionProvider"])
        model.input_name = model.ort_session.get_inputs()[0].name
        with open(model.model_path, "rb") as onnx:
            digest = hashlib.sha256(onnx.read()).hexdigest()
        models[name] = (model, digest)
    return models[name]


def score(request):
    talk_type = request["talk_type"]
    model, digest = model_for(request["sample_rate"])
    rate = model.sampling_rate
    lpb, mic, enh = (librosa.load(request[key], sr=rate)[0] for key in ("reference", "mic", "output"))
    length = min(len(lpb), len(mic), len(enh))
    piece = MAX_SECONDS * rate
    pieces = max(1, math.ceil(length / piece))
    echo = other = 0.0
    for index in range(pieces):
        start, end = length * index // pieces, length * (index + 1) // pieces
        e, o = model._get_mos(talk_type, lpb[start:end], mic[start:end], enh[start:end])
        echo += e * (end - start) / length
        other += o * (end - start) / length
    return {"id": request["id"],
            "scorer": {"name": f"speechmos {model.model_name}", "version": importlib.metadata.version("speechmos"),
                       "model_sha256": digest},
            "scores": {"aecmos_echo": {"value": min(5.0, max(1.0, echo)), "higher_is_better": True, "min": 1, "max": 5},
                       "aecmos_other": {"value": min(5.0, max(1.0, other)), "higher_is_better": True, "min": 1, "max": 5}}}


for line in sys.stdin:
    request = json.loads(line)
    try:
        answer = score(request)
    except Exception as error:   # one line: the stretch cannot be scored
        answer = {"id": request.get("id"), "error": f"{type(error).__name__}: {error}".splitlines()[0]}
    print(json.dumps(answer), flush=True)
