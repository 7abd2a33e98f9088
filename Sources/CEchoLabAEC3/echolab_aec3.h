#ifndef ECHOLAB_AEC3_H
#define ECHOLAB_AEC3_H

// WebRTC's AEC3, from Debian's libtgowt-dev (Telegram desktop's static build of a 2023 WebRTC),
// behind one C function table. tg_owt defines 771 symbols that webrtc-audio-processing 0.3 also
// exports (WebRtcAecm_*, WebRtcSpl_*, webrtc::AudioBuffer …), with other layouts: linked side by
// side, either library's calls could land in the other's code. So `make deps` builds
// Native/aec3/echolab_aec3.cpp with the parts of tg_owt and abseil it needs into one object whose
// only global symbol is `echolab_aec3_entry` (scripts/build-aec3.sh), installed as
// libecholab_aec3.a with the pkg-config file this module is found through.

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ECHOLAB_AEC3_API_VERSION 2

typedef struct EchoLabAEC3 EchoLabAEC3;

// How an intensity configures AEC3's EchoCanceller3Config (the table is in AEC3EchoControl).
typedef struct {
    int filter_blocks;             // refined and coarse filter length in 4 ms blocks (WebRTC's default: 13, 52 ms)
    float masking_scale;           // multiplies the suppressor's echo-to-near-end masking thresholds (1: WebRTC's; > 1 more transparent)
    float nearend_enr_threshold;   // echo-to-near-end ratio under which the near end dominates (WebRTC's: 0.25)
} EchoLabAEC3Settings;

typedef struct {
    // AEC3's own running estimates; each has_* is 0 where it reports none.
    double erl_db, erle_db, divergent_filter_fraction;
    int delay_ms;
    int has_erl, has_erle, has_divergent_filter_fraction, has_delay;
} EchoLabAEC3Statistics;

typedef struct {
    int api_version;               // ECHOLAB_AEC3_API_VERSION of the library as built
    // sample_rate: 16000, 32000 or 48000; frames are 10 ms, mono Float32 in [-1, 1].
    // NULL and a one-line reason in `error` on failure.
    EchoLabAEC3 *(*create)(int sample_rate, EchoLabAEC3Settings settings, char *error, size_t error_size);
    void (*destroy)(EchoLabAEC3 *aec);
    // The far end as played: one frame. 0 or WebRTC's error code.
    int (*render)(EchoLabAEC3 *aec, const float *frame);
    // One microphone frame in, the processed frame out (may be the same buffer). 0 or WebRTC's error code.
    int (*capture)(EchoLabAEC3 *aec, const float *input, float *output);
    void (*statistics)(EchoLabAEC3 *aec, EchoLabAEC3Statistics *statistics);
} EchoLabAEC3API;

const EchoLabAEC3API *echolab_aec3_entry(void);

// The versions of the native libraries this build of EchoLab links (from pkg-config and dpkg when
// `make deps` built this library), for reports: a baseline says what it measured.
typedef struct {
    const char *speexdsp;
    const char *webrtc_audio_processing;
    const char *tg_owt;
} EchoLabNativeVersions;

const EchoLabNativeVersions *echolab_native_versions(void);

#ifdef __cplusplus
}
#endif

#endif
