#ifndef ECHOLAB_WEBRTC_APM_SHIM_H
#define ECHOLAB_WEBRTC_APM_SHIM_H

// A C face for webrtc-audio-processing 0.3's echo cancellers, so that Swift needs no C++:
// the legacy AEC (`echolab_apm_aec`) and the mobile AECM (`echolab_apm_aecm`), one 10 ms mono
// Float32 frame in [-1, 1] per call. Everything else of the APM (noise suppression, AGC, the
// high-pass filter) stays off: EchoLab measures the canceller alone.

#ifdef __cplusplus
extern "C" {
#endif

typedef struct EchoLabAPM EchoLabAPM;

typedef enum {
    echolab_apm_aec = 0,
    echolab_apm_aecm = 1
} EchoLabAPMKind;

typedef struct {
    int extended_filter;      // AEC: the longer, more robust filter (0/1)
    int delay_agnostic;       // AEC: estimate the render→capture delay internally (0/1)
    int suppression_level;    // AEC: 0 low, 1 moderate, 2 high
    int routing_mode;         // AECM: 0 quiet earpiece/headset … 4 loud speakerphone
    int comfort_noise;        // AECM: fill suppressed noise (0/1)
} EchoLabAPMSettings;

typedef struct {
    // dB, WebRTC's own running estimates (average over the call so far); -100 when unknown.
    int erl_db;
    int erle_db;
    int residual_erl_db;
    int a_nlp_db;
    int delay_median_ms;
    int delay_std_ms;
    int has_metrics;
} EchoLabAPMMetrics;

// Creates an APM running one canceller at `sample_rate` (AEC: 8000, 16000, 32000 or 48000;
// AECM: 8000 or 16000). Returns NULL and sets *error to WebRTC's error code on failure.
EchoLabAPM *echolab_apm_create(EchoLabAPMKind kind, int sample_rate, EchoLabAPMSettings settings, int *error);
void echolab_apm_destroy(EchoLabAPM *apm);

// Samples in one 10 ms frame at the APM's rate.
int echolab_apm_frame_size(const EchoLabAPM *apm);

// Changes the suppression level (AEC) or routing mode (AECM) while running; returns the error code.
int echolab_apm_update(EchoLabAPM *apm, EchoLabAPMSettings settings);

// The far end as played (render side): one frame. Returns 0 or WebRTC's error code.
int echolab_apm_render(EchoLabAPM *apm, const float *frame);

// One captured frame in, the processed frame out (may be the same buffer); `delay_ms` is the
// render→capture delay the application reports. Returns 0 or WebRTC's error code.
int echolab_apm_capture(EchoLabAPM *apm, const float *input, float *output, int delay_ms);

// Whether the last captured frame may contain echo (AEC only; AECM answers 1).
int echolab_apm_stream_has_echo(const EchoLabAPM *apm);

void echolab_apm_metrics(EchoLabAPM *apm, EchoLabAPMMetrics *metrics);

#ifdef __cplusplus
}
#endif

#endif
