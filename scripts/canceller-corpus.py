#!/usr/bin/env python3
"""Writes the development corpus for tuning echo cancellers: two AEC-Challenge *synthetic*
corpora (farend_speech/, nearend_mic_signal/, echo_signal/, nearend_speech/, files
PREFIX_fileid_ID.wav) that `echolab eval` reads as they are.

    scripts/canceller-corpus.py OUT_DIR      # writes OUT_DIR/tune/, OUT_DIR/heldout/, OUT_DIR/legend.txt

`tune` is what a canceller is tuned on, `heldout` what checks that the tuning generalises: the
same seven conditions, but other voices, other texts and other room seeds, so a gain on `tune`
that does not show on `heldout` is over-fitting. Speech is espeak-ng (deterministic: the same
text and voice give the same samples), rooms are synthetic impulse responses (direct path plus
an exponentially decaying noise tail) drawn from fixed seeds, so every run writes the same bytes.
48 kHz mono 16-bit, as a device records. Needs numpy, scipy, soundfile (re-executes itself with
.build/dev-venv/bin/python3 when they are missing; scripts/canceller-eval.sh makes that venv).
"""
import os, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
VENV_PY = os.path.join(HERE, "..", ".build", "dev-venv", "bin", "python3")
try:
    import numpy as np, scipy.signal as sps, soundfile as sf
except ImportError:
    # The system python has no numpy; the dev venv does. Re-exec once rather than failing.
    # (The venv's python3 is a symlink to the system one, so compare prefixes, not executables.)
    if os.path.exists(VENV_PY) and os.path.realpath(sys.prefix) != os.path.realpath(os.path.dirname(os.path.dirname(VENV_PY))):
        os.execv(VENV_PY, [VENV_PY] + sys.argv)
    sys.exit("needs numpy, scipy, soundfile: run with .build/dev-venv/bin/python3 "
             "(scripts/canceller-eval.sh creates it)")

FS = 48000
NOISE_DBFS = -65.0          # white sensor noise at the mic: well under speech, above 16-bit dither
FAR_DBFS = -20.0            # the far end's active level as the loopback records it

# Seven conditions, one item each per set. The id is the item's name in eval's reports
# (`fileid_<id>`), so it says what the item tests. Times in seconds.
#   far/near: the talker's span; erl: far-end level − echo level (dB, at the mic);
#   ser: near-end level − echo level (dB); delay: bulk delay (s); extra keys: the condition's twist;
#   variant_of: another condition's tracks, only the mic's noise redrawn at noise_dbfs.
CONDITIONS = [
    dict(id="a-dt", dur=16.0, far=(0.5, 15.5), near=(8.0, 15.5), rt60=0.3, delay=0.040, erl=6, ser=0,
         what="main room: far-end single talk, then double talk from 8 s; RT60 0.3 s, 40 ms, ERL 6 dB, SER 0 dB"),
    dict(id="b-earpiece", dur=16.0, far=(0.5, 15.5), near=(2.5, 15.5), rt60=0.3, delay=0.040, erl=30, ser=22,
         what="quiet earpiece: ERL 30 dB, near end 22 dB above the echo, double talk from 2.5 s"),
    dict(id="c-clipped", dur=14.0, far=(0.5, 13.5), near=(11.0, 13.5), rt60=0.3, delay=0.040, erl=-4, ser=0,
         far_dbfs=-24.0, clip=0.02,
         what="clipped loudspeaker: 2 % of the loudspeaker's samples hard-clipped before the room, "
              "reference unclipped; ERL -4 dB; far-end single talk, short double talk from 11 s (SER 0 dB)"),
    dict(id="d-pathchange", dur=16.0, far=(0.5, 15.5), near=None, rt60=0.3, delay=0.040, erl=6, ser=None,
         delay_after=0.055, change_at=8.0,
         what="echo-path change: bulk delay 40 -> 55 ms at 8 s, mid far-end single talk; same room otherwise"),
    dict(id="e-drift", dur=20.0, far=(0.5, 19.5), near=None, rt60=0.3, delay=0.040, erl=6, ser=None,
         drift=1.0001,
         what="100 ppm clock drift: the mic path runs 1.0001x the reference clock (echo 2 ms earlier "
              "by the end); far-end single talk"),
    dict(id="f-delay320", dur=16.0, far=(0.5, 15.5), near=(8.5, 15.5), rt60=0.3, delay=0.320, erl=6, ser=0,
         what="long bulk delay 320 ms; double talk in the second half (from 8.5 s, SER 0 dB)"),
    # The same talkers, echo and near end as b-earpiece, only the mic's noise 20 dB lower: at
    # -65 dBFS, b-earpiece's echo-free mic itself scores PESQ-WB 3.17 against the clean talker, so
    # "the near end untouched, PESQ-WB >= 3.2" can only be checked in a quieter room.
    dict(id="g-earpiece-quiet", variant_of="b-earpiece", noise_dbfs=-85.0,
         what="quiet earpiece in a quiet room: b-earpiece's far end, echo and near end; the mic's noise at -85 dBFS"),
]

# Voices and texts differ between the sets, so nothing tuned on one talker or sentence carries
# over for free. Sentences are our own (no licensing question); each set rotates through its pool.
SETS = {
    "tune": dict(seed=1001, far_voices=["en-us", "en-gb+f3"], near_voices=["en-gb+f3", "en-us"], speed=165,
                 sentences=[
        "The morning train was late again, so we waited on the cold platform.",
        "Please send the quarterly figures before the meeting on Thursday afternoon.",
        "A small boat drifted past the harbour wall while the gulls circled overhead.",
        "I think the new layout works, but the second menu is still hard to find.",
        "Her garden grows tomatoes, beans and a row of tall yellow sunflowers.",
        "We should test the network again after the router has been restarted.",
        "The library closes at eight, although the reading room stays open later.",
        "Could you check whether the invoice number matches the one in the email?",
        "Thick fog rolled in from the sea and covered the whole valley by noon.",
        "The recipe needs two eggs, a cup of flour and a pinch of salt.",
        "Nobody expected the old bridge to survive another winter of storms.",
        "Let us move the review to Monday, when everyone is back from the trip.",
        "The children built a tower of wooden blocks that reached the window sill.",
        "My laptop fan gets loud whenever the video call runs for more than an hour.",
        "A brass band played in the square while the market stalls were packed away.",
        "The second draft is shorter, clearer and much easier to read aloud.",
    ]),
    "heldout": dict(seed=2002, far_voices=["en-us+m3", "en-gb-x-rp+f4"], near_voices=["en-gb-x-rp+f4", "en-us+m3"],
                    speed=175, sentences=[
        "The hikers reached the summit just before the clouds closed in around them.",
        "Remember to water the plants on the balcony while I am away next week.",
        "Our supplier promised the spare parts would arrive by the end of the month.",
        "The lecture hall was so quiet that you could hear the clock ticking.",
        "He painted the fence green, then changed his mind and painted it white.",
        "If the printer jams again, open the side panel and remove the paper slowly.",
        "Fresh bread from the corner bakery is the best part of a Saturday morning.",
        "The committee voted to extend the deadline by another two weeks.",
        "A strong wind blew the leaves across the empty car park in circles.",
        "She keeps her notes in a blue folder on the top shelf of the cabinet.",
        "The orchestra tuned their instruments while the audience found their seats.",
        "We lost the signal in the tunnel, so the call dropped twice on the way home.",
        "The museum opened a new wing dedicated to early flying machines.",
        "Turn left at the fountain, and the station is on your right after the bridge.",
        "Every spring the river floods the lower meadow for a few days.",
        "The software update fixed the crash but made the start-up a little slower.",
    ]),
}


def speak(voice, text, speed):
    """espeak-ng at its native 22.05 kHz, resampled to 48 kHz (polyphase: exact and deterministic)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "s.wav")
        subprocess.run(["espeak-ng", "-v", voice, "-s", str(speed), "-w", path, text], check=True)
        x, rate = sf.read(path, dtype="float64")
    assert rate == 22050, f"espeak-ng rate {rate}"
    return sps.resample_poly(x, 320, 147)          # 22050 * 320 / 147 = 48000


def talker(voice, sentences, start_index, seconds, speed):
    """Sentences (rotating from start_index) with short pauses until `seconds` are filled, cut there
    with a 20 ms fade so the cut is no click."""
    parts, total, i = [], 0, start_index
    need = int(seconds * FS)
    while total < need:
        s = speak(voice, sentences[i % len(sentences)], speed)
        parts += [s, np.zeros(int(0.35 * FS))]
        total += len(s) + int(0.35 * FS)
        i += 1
    x = np.concatenate(parts)[:need]
    fade = int(0.02 * FS)
    x[-fade:] *= np.linspace(1, 0, fade)
    return x, i


def active_rms(x):
    """Level over the frames that hold speech (within 40 dB of the loudest 10 ms frame): a speech
    level that pauses between sentences do not drag down, as P.56's active level intends."""
    n = len(x) // 480 * 480
    e = np.mean(x[:n].reshape(-1, 480) ** 2, axis=1)
    return np.sqrt(np.mean(e[e > e.max() * 1e-4]))


def db(v):
    return 20 * np.log10(v)


def room_ir(rng, rt60, delay):
    """Bulk delay, a direct path, then from 1 ms on a white-noise tail decaying 60 dB in rt60 whose
    energy is 3 dB under the direct path's (a desk device: direct coupling dominates). Same rng
    state -> same room; the bulk delay is only the leading zeros, so two delays give one room."""
    n = int(rt60 * FS)
    tail = rng.standard_normal(n) * np.exp(-6.908 * np.arange(n) / (rt60 * FS))
    tail *= np.sqrt(10 ** (-3 / 10) / np.sum(tail ** 2))
    ir = np.zeros(int(round(delay * FS)) + 48 + n)
    ir[int(round(delay * FS))] = 1.0
    ir[-n:] += tail
    return ir


def drift(x, ratio):
    """x read on a clock `ratio` times faster: y[n] = x(n·ratio), by 32-tap Hann-windowed sinc
    interpolation (linear interpolation would dull the top octave, which a canceller would see
    as a path change, not as drift). The end is padded with zeros to keep the length."""
    t = np.arange(int((len(x) - 1) / ratio)) * ratio
    i0 = np.floor(t).astype(np.int64)
    frac = t - i0
    y = np.zeros(len(x))
    for k in range(-15, 17):
        d = k - frac
        w = np.sinc(d) * (0.5 + 0.5 * np.cos(np.pi * d / 16))
        y[:len(t)] += x[np.clip(i0 + k, 0, len(x) - 1)] * w
    return y


def make_item(cond, voices, sentences, rng, cursor, speed):
    """One item's four tracks (far end, mic, echo, near end) and a line of what was measured."""
    n = int(cond["dur"] * FS)
    far = np.zeros(n)
    a, b = cond["far"]
    speech, cursor = talker(voices[0], sentences, cursor, b - a, speed)
    far[int(a * FS):int(a * FS) + len(speech)] = speech
    far *= 10 ** (cond.get("far_dbfs", FAR_DBFS) / 20) / active_rms(far)

    # What the loudspeaker plays: the reference, or hard-clipped at the level 2 % of its samples
    # exceed. The reference stays unclipped (the amplifier clips, not the app's signal), so the
    # echo holds a non-linearity no linear filter on the reference can model.
    speaker = far.copy()
    note = ""
    if "clip" in cond:
        level = np.quantile(np.abs(far), 1 - cond["clip"])
        speaker = np.clip(far, -level, level)
        note = f"; clip level {db(level):.1f} dBFS, {np.mean(np.abs(far) > level) * 100:.2f} % of samples clipped"

    ir = room_ir(rng, cond["rt60"], cond["delay"])
    echo = sps.fftconvolve(speaker, ir)[:n]
    if "delay_after" in cond:
        # Same room, later bulk delay: the second IR is the first shifted. Switch with a 10 ms
        # crossfade at change_at so the switch itself adds no click to score.
        shift = int(round((cond["delay_after"] - cond["delay"]) * FS))
        later = np.concatenate([np.zeros(shift), echo[:n - shift]])
        w = np.clip((np.arange(n) - cond["change_at"] * FS) / (0.01 * FS), 0, 1)
        echo = (1 - w) * echo + w * later
    # ERL is set on the echo as it reaches the mic (the reference's level minus the echo's).
    echo *= 10 ** ((db(active_rms(far)) - cond["erl"] - db(active_rms(echo))) / 20)

    near = np.zeros(n)
    if cond["near"]:
        a, b = cond["near"]
        speech, _ = talker(voices[1], sentences, cursor + 3, b - a, speed)
        near[int(a * FS):int(a * FS) + len(speech)] = speech
        near *= 10 ** ((db(active_rms(echo)) + cond["ser"] - db(active_rms(near))) / 20)

    if "drift" in cond:
        # Mic and loopback on separate clocks: everything the mic hears (echo, near end) is
        # resampled; the reference is not. Ground-truth tracks stay aligned with the mic.
        echo, near = drift(echo, cond["drift"]), drift(near, cond["drift"])
        note = f"; mic clock {cond['drift']:.4f}x reference ({(cond['drift'] - 1) * cond['dur'] * 1000:.1f} ms by the end)"

    noise = rng.standard_normal(n) * 10 ** (NOISE_DBFS / 20)
    mic = echo + near + noise
    peak = np.max(np.abs(np.concatenate([mic, far, echo, near])))
    assert peak < 0.99, f"{cond['id']}: a track would clip at the converter (peak {peak:.3f})"

    erl = db(active_rms(far)) - db(active_rms(echo))
    ser = f"{db(active_rms(near)) - db(active_rms(echo)):+.1f} dB" if cond["near"] else "n/a (no near end)"
    desc = (f"far {cond['far'][0]}-{cond['far'][1]} s ({voices[0]}), near "
            + (f"{cond['near'][0]}-{cond['near'][1]} s ({voices[1]})" if cond["near"] else "none")
            + f"; measured ERL {erl:.1f} dB, SER {ser}{note}")
    return dict(farend_speech=far, nearend_mic=mic, echo=echo, nearend_speech=near), cursor, desc


FOLDERS = dict(farend_speech="farend_speech", nearend_mic="nearend_mic_signal",
               echo="echo_signal", nearend_speech="nearend_speech")


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    legend = ["EchoLab canceller development corpus (scripts/canceller-corpus.py).",
              "Each set is an AEC-Challenge synthetic folder; eval names item ID `fileid_ID`.",
              f"48 kHz mono 16-bit; far-end active level {FAR_DBFS:.0f} dBFS unless noted; "
              f"mic = echo + near end + {NOISE_DBFS:.0f} dBFS white noise; RT60 0.3 s rooms.", ""]
    for name, spec in SETS.items():
        legend.append(f"## {name} (seed {spec['seed']}, talkers at {spec['speed']} wpm)")
        cursor = 0
        made = {}
        for k, cond in enumerate(CONDITIONS):
            # One generator per item (seeded by set and item), so adding a condition leaves the
            # others' rooms and noise unchanged.
            rng = np.random.default_rng([spec["seed"], k])
            if "variant_of" in cond:
                tracks, desc = made[cond["variant_of"]]
                tracks = dict(tracks)
                noise = rng.standard_normal(len(tracks["echo"])) * 10 ** (cond["noise_dbfs"] / 20)
                tracks["nearend_mic"] = tracks["echo"] + tracks["nearend_speech"] + noise
                desc = f"{desc}; noise {cond['noise_dbfs']:.0f} dBFS"
            else:
                voices = (spec["far_voices"][k % 2], spec["near_voices"][k % 2])
                tracks, cursor, desc = make_item(cond, voices, spec["sentences"], rng, cursor, spec["speed"])
            made[cond["id"]] = (tracks, desc)
            for prefix, x in tracks.items():
                folder = os.path.join(out, name, FOLDERS[prefix])
                os.makedirs(folder, exist_ok=True)
                sf.write(os.path.join(folder, f"{prefix}_fileid_{cond['id']}.wav"), x, FS, subtype="PCM_16")
            legend += [f"fileid_{cond['id']}: {cond['what']}", f"    {desc}"]
            print(f"{name}/fileid_{cond['id']}: {desc}", file=sys.stderr)
        legend.append("")
    with open(os.path.join(out, "legend.txt"), "w") as f:
        f.write("\n".join(legend) + "\n")


if __name__ == "__main__":
    main()
