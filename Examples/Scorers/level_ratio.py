#!/usr/bin/env python3
"""An EchoLab scorer (protocol 1): how far under the mic the output is, per stretch."""
import json, math, struct, sys, wave

def mean_square(path):
    with wave.open(path) as w:          # EchoLab writes 16-bit mono WAVs for scorers
        data = w.readframes(w.getnframes())
    samples = struct.unpack("<%dh" % (len(data) // 2), data)
    return sum(s * s for s in samples) / max(1, len(samples)) / 32768.0 ** 2

for line in sys.stdin:
    request = json.loads(line)
    mic, output = mean_square(request["mic"]), mean_square(request["output"])
    ratio = 10 * math.log10(max(mic, 1e-12) / max(output, 1e-12))
    answer = {"id": request["id"], "scorer": {"name": "level-ratio", "version": "1"},
              "scores": {"mic_over_output_db": {"value": ratio, "higher_is_better": request["talk_type"] == "st",
                                                "min": -120, "max": 120}}}
    print(json.dumps(answer), flush=True)
