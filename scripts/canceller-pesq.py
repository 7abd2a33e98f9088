#!/usr/bin/env python3
"""PESQ-WB of what each canceller sent in double talk, as a Markdown table on stdout.

    scripts/canceller-pesq.py EVAL_OUT CORPUS_DIR

EVAL_OUT is the --out of `echolab eval CORPUS_DIR --modes ... --out EVAL_OUT` run WITH taps (no
--no-taps), so every run left EVAL_OUT/ITEM/MODE/sent.wav, aligned with the mic sample for
sample. CORPUS_DIR is the AEC-Challenge synthetic folder eval read (e.g. from
scripts/canceller-corpus.py): its clean near-end track is PESQ's reference.

Why PESQ beside eval's own figures: eval's near-end attenuation is a gain (Σs·n/Σn²) — it does not
see the talker's spectrum chopped by suppression or the residual echo left on top of it, which a
listener hears. PESQ-WB (ITU-T P.862.2, 16 kHz) scores exactly that, but only where both talk: in
near-end single talk every canceller passes the talker, and in far-end single talk there is no
talker to score. So each item is scored over its double-talk stretch (from when both the echo
and the near end are active until either stops), and the unprocessed mic over the same stretch is
the baseline row. A second baseline row, `near end + noise (no echo)`, scores mic − echo: the
best a canceller that leaves the mic's noise alone can reach (PESQ charges the mic's noise in the
clean track's digital-silence pauses too, so at −65 dBFS this ceiling is well under 4.6). Items
without double talk get '—'.

Needs numpy, scipy, soundfile, pesq: re-executes itself with .build/dev-venv/bin/python3 when they
are missing (scripts/canceller-eval.sh makes that venv).
"""
import json, os, sys

HERE = os.path.dirname(os.path.abspath(__file__))
VENV = os.path.join(HERE, "..", ".build", "dev-venv")
try:
    import numpy as np, scipy.signal as sps, soundfile as sf
    from pesq import pesq
except ImportError:
    # The venv's python3 is a symlink to the system one: compare prefixes to avoid a loop.
    if os.path.exists(os.path.join(VENV, "bin", "python3")) and os.path.realpath(sys.prefix) != os.path.realpath(VENV):
        py = os.path.join(VENV, "bin", "python3")
        os.execv(py, [py] + sys.argv)
    sys.exit("needs numpy, scipy, soundfile, pesq: run with .build/dev-venv/bin/python3 "
             "(scripts/canceller-eval.sh creates it)")

FRAME = 960            # 20 ms at 48 kHz
ACTIVE_DBFS = -50.0    # a track's 20 ms frame counts as speech above this (noise-free ground truth)


def read(path):
    x, rate = sf.read(path, dtype="float64")
    assert x.ndim == 1 and rate == 48000, f"{path}: expected 48 kHz mono"
    return x


def span(x):
    """First and last sample of the 20 ms frames where the track is active, or None."""
    n = len(x) // FRAME * FRAME
    e = 10 * np.log10(np.mean(x[:n].reshape(-1, FRAME) ** 2, axis=1) + 1e-20)
    on = np.flatnonzero(e > ACTIVE_DBFS)
    return (on[0] * FRAME, (on[-1] + 1) * FRAME) if len(on) else None


def double_talk(echo, near):
    """The stretch where both the echo (the far end as the mic hears it) and the near end talk.
    Spans, not per-frame activity: PESQ wants one contiguous utterance and handles the pauses
    within it itself; the corpus's talkers each speak one stretch."""
    a, b = span(echo), span(near)
    if a is None or b is None:
        return None
    lo, hi = max(a[0], b[0]), min(a[1], b[1])
    return (lo, hi) if hi - lo >= 48000 else None      # under 1 s PESQ is no measure


def score(ref, deg):
    """PESQ-WB at 16 kHz (the 48 kHz tracks decimated by 3 with an anti-alias filter)."""
    try:
        return f"{pesq(16000, sps.resample_poly(ref, 1, 3), sps.resample_poly(deg, 1, 3), 'wb'):.2f}"
    except Exception as e:                                   # e.g. NoUtterancesError on silence
        return f"error ({type(e).__name__})"


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    out, corpus = sys.argv[1:]
    with open(os.path.join(out, "eval.json")) as f:
        ev = json.load(f)
    modes = ev["modes"]
    ceiling = "near end + noise (no echo)"
    rows = {"mic (unprocessed)": {}, ceiling: {}} | {m: {} for m in modes}
    headers = []
    for item in ev["items"]:
        name = item["name"]                                   # fileid_ID
        track = lambda folder, prefix: os.path.join(corpus, folder, f"{prefix}_{name}.wav")
        near, echo = read(track("nearend_speech", "nearend_speech")), read(track("echo_signal", "echo"))
        mic = read(track("nearend_mic_signal", "nearend_mic"))
        dt = double_talk(echo, near)
        headers.append(f"{name} (DT {dt[0] / 48000:.1f}–{dt[1] / 48000:.1f} s)" if dt else name)
        cut = (lambda x: x[dt[0]:dt[1]]) if dt else None
        rows["mic (unprocessed)"][name] = score(cut(near), cut(mic)) if dt else "—"
        rows[ceiling][name] = score(cut(near), cut(mic - echo)) if dt else "—"
        for result in item["results"]:
            sent = os.path.join(out, result["folder"], "sent.wav")
            if not dt:
                cell = "—"
            elif result.get("error") or not os.path.exists(sent):
                cell = "run failed" if result.get("error") else "no sent.wav (--no-taps?)"
            else:
                s = read(sent)
                assert len(s) == len(mic), f"{sent}: {len(s)} samples, the mic has {len(mic)}"
                cell = score(cut(near), cut(s))
            rows[result["mode"]][name] = cell
    names = [i["name"] for i in ev["items"]]
    print(f"PESQ-WB (P.862.2, MOS-LQO) of the sent near end in double talk — {os.path.abspath(out)}\n")
    print("| mode | " + " | ".join(h.replace("_", "\\_") for h in headers) + " |")
    print("|---" * (len(names) + 1) + "|")
    for mode, cells in rows.items():
        print(f"| `{mode}` | " + " | ".join(cells.get(n, "—") for n in names) + " |")
    print()


if __name__ == "__main__":
    main()
