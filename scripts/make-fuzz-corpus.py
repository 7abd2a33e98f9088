#!/usr/bin/env python3
"""Writes the audio seed corpus for `make fuzz` (Fuzz/corpus/audio): small files of several
containers, subtypes, rates and channel counts written by libsndfile itself (through ctypes, the
same library EchoLab reads with), plus hand-broken variants: cut short, zero rate, zero / huge
channel counts, absurd data sizes. Deterministic: the same bytes every run. Run it only to
change the corpus (the files are committed):  python3 scripts/make-fuzz-corpus.py
"""
import ctypes, ctypes.util, math, os, struct, sys, wave

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Fuzz", "corpus", "audio")

class SFInfo(ctypes.Structure):
    _fields_ = [("frames", ctypes.c_int64), ("samplerate", ctypes.c_int), ("channels", ctypes.c_int),
                ("format", ctypes.c_int), ("sections", ctypes.c_int), ("seekable", ctypes.c_int)]

lib = ctypes.CDLL(ctypes.util.find_library("sndfile") or "libsndfile.so.1")
lib.sf_open.restype = ctypes.c_void_p
lib.sf_open.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.POINTER(SFInfo)]
lib.sf_writef_float.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_float), ctypes.c_int64]
lib.sf_writef_float.restype = ctypes.c_int64
lib.sf_close.argtypes = [ctypes.c_void_p]
lib.sf_command.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
SFM_WRITE, SFC_SET_ADD_PEAK_CHUNK = 0x20, 0x1050

WAV, AIFF, AU, RAW, IRCAM, W64, CAF, FLAC, OGG, RF64, WAVEX, VOC, NIST = (
    0x010000, 0x020000, 0x030000, 0x040000, 0x0A0000, 0x0B0000, 0x180000, 0x170000, 0x200000,
    0x220000, 0x130000, 0x080000, 0x070000)
PCM_U8, PCM_16, PCM_24, PCM_32, FLOAT, DOUBLE, ULAW, ALAW, IMA, MSADPCM, GSM, VORBIS, OPUS = (
    0x05, 0x02, 0x03, 0x04, 0x06, 0x07, 0x10, 0x11, 0x12, 0x13, 0x20, 0x60, 0x64)

def signal(frames, channels):
    return [0.4 * math.sin(2 * math.pi * (440 + 110 * c) * n / 8000.0) for n in range(frames) for c in range(channels)]

def sndfile(name, fmt, rate, channels, frames):
    path = os.path.join(OUT, name)
    info = SFInfo(0, rate, channels, fmt, 0, 0)
    handle = lib.sf_open(path.encode(), SFM_WRITE, ctypes.byref(info))
    if not handle:
        print(f"skipped {name}: libsndfile cannot write it here", file=sys.stderr)
        return None
    lib.sf_command(handle, SFC_SET_ADD_PEAK_CHUNK, None, 0)   # no wall-clock timestamp: same bytes every run
    samples = signal(frames, channels)
    lib.sf_writef_float(handle, (ctypes.c_float * len(samples))(*samples), frames)
    lib.sf_close(handle)
    return path

def plain_wav(frames=200, rate=16000, channels=1):
    """A canonical 44-byte-header PCM16 WAV, so header fields sit at known offsets."""
    pcm = b"".join(struct.pack("<h", int(32767 * s)) for s in signal(frames, channels))
    fmt = struct.pack("<HHIIHH", 1, channels, rate, rate * channels * 2, channels * 2, 16)
    return b"RIFF" + struct.pack("<I", 36 + len(pcm)) + b"WAVE" + b"fmt " + struct.pack("<I", 16) + fmt \
        + b"data" + struct.pack("<I", len(pcm)) + pcm

def patched(data, offset, fmt, value):
    data = bytearray(data)
    struct.pack_into(fmt, data, offset, value)
    return bytes(data)

def write(name, data):
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)

def main():
    os.makedirs(OUT, exist_ok=True)
    for old in os.listdir(OUT):
        os.remove(os.path.join(OUT, old))
    made = [
        sndfile("pcm16-16k-mono.wav", WAV | PCM_16, 16000, 1, 400),
        sndfile("pcm24-48k-stereo.wav", WAV | PCM_24, 48000, 2, 300),
        sndfile("float-44k-mono.wav", WAV | FLOAT, 44100, 1, 400),
        sndfile("double-8k-mono.wav", WAV | DOUBLE, 8000, 1, 200),
        sndfile("u8-11k-mono.wav", WAV | PCM_U8, 11025, 1, 600),
        sndfile("ulaw-8k-mono.wav", WAV | ULAW, 8000, 1, 600),
        sndfile("ima-adpcm-22k-mono.wav", WAV | IMA, 22050, 1, 1017),
        sndfile("ms-adpcm-8k-stereo.wav", WAV | MSADPCM, 8000, 2, 500),
        sndfile("gsm-8k-mono.wav", WAV | GSM, 8000, 1, 640),
        sndfile("wavex-pcm32-96k-quad.wav", WAVEX | PCM_32, 96000, 4, 100),
        sndfile("rf64-pcm16-48k-mono.wav", RF64 | PCM_16, 48000, 1, 300),
        sndfile("pcm16-32k-mono.aiff", AIFF | PCM_16, 32000, 1, 400),
        sndfile("float-48k-stereo.aiff", AIFF | FLOAT, 48000, 2, 200),
        sndfile("alaw-8k-mono.au", AU | ALAW, 8000, 1, 600),
        sndfile("pcm16-16k-mono.caf", CAF | PCM_16, 16000, 1, 400),
        sndfile("pcm16-22k-mono.w64", W64 | PCM_16, 22050, 1, 300),
        sndfile("pcm16-16k-mono.sf", IRCAM | PCM_16, 16000, 1, 300),
        sndfile("pcm16-8k-mono.nist", NIST | PCM_16, 8000, 1, 300),
        sndfile("u8-8k-mono.voc", VOC | PCM_U8, 8000, 1, 400),
        sndfile("pcm16-44k-mono.flac", FLAC | PCM_16, 44100, 1, 2000),
        sndfile("pcm24-96k-stereo.flac", FLAC | PCM_24, 96000, 2, 500),
        sndfile("vorbis-44k-mono.ogg", OGG | VORBIS, 44100, 1, 2000),
        sndfile("opus-48k-mono.opus", OGG | OPUS, 48000, 1, 2000),
    ]
    # Cut short: half the file, and the header alone.
    for path in [p for p in made if p]:
        name = os.path.basename(path)
        data = open(path, "rb").read()
        if name.startswith(("pcm16-16k-mono.wav", "pcm16-32k-mono.aiff", "pcm16-44k-mono.flac", "vorbis", "pcm16-16k-mono.caf")):
            write("cut-half-" + name, data[: len(data) // 2])
            write("cut-header-" + name, data[: min(60, len(data) - 1)])
    # Hand-broken canonical WAV headers (offsets: channels 22, rate 24, block align 32, bits 34, data size 40).
    base = plain_wav()
    write("plain-pcm16-16k.wav", base)
    write("broken-rate-0.wav", patched(base, 24, "<I", 0))
    write("broken-rate-1.wav", patched(base, 24, "<I", 1))
    write("broken-rate-huge.wav", patched(base, 24, "<I", 0xFFFFFFFF))
    write("broken-channels-0.wav", patched(base, 22, "<H", 0))
    write("broken-channels-65535.wav", patched(base, 22, "<H", 65535))
    write("broken-channels-1024.wav", patched(patched(base, 22, "<H", 1024), 32, "<H", 2048))
    write("broken-bits-0.wav", patched(base, 34, "<H", 0))
    write("broken-bits-64.wav", patched(base, 34, "<H", 64))
    write("broken-blockalign-0.wav", patched(base, 32, "<H", 0))
    write("broken-datasize-huge.wav", patched(base, 40, "<I", 0x7FFFFFF0))
    write("broken-datasize-ffffffff.wav", patched(base, 40, "<I", 0xFFFFFFFF))
    write("broken-format-ieee-16bit.wav", patched(base, 20, "<H", 3))
    write("broken-format-unknown.wav", patched(base, 20, "<H", 0x1234))
    write("nan-float.wav", open(made[2], "rb").read()[:-8] + struct.pack("<ff", float("nan"), float("inf")))
    write("empty.wav", b"")
    write("riff-only.wav", b"RIFF\x04\x00\x00\x00WAVE")
    write("text.wav", b"this is not audio\n")

if __name__ == "__main__":
    main()
