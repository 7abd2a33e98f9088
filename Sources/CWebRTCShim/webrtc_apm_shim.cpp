// The only C++ in EchoLab: webrtc-audio-processing 0.3 behind the C functions of
// webrtc_apm_shim.h. WEBRTC_POSIX, WEBRTC_LINUX and WEBRTC_AUDIO_PROCESSING_ONLY_BUILD come
// from Package.swift (SwiftPM does not pass pkg-config's -D flags).
#include "webrtc_apm_shim.h"

#include <memory>
#include <pthread.h>
#include <vector>
#include <webrtc/common.h>
#include <webrtc/modules/audio_processing/include/audio_processing.h>

struct EchoLabAPM {
    std::unique_ptr<webrtc::AudioProcessing> apm;
    EchoLabAPMKind kind;
    webrtc::StreamConfig stream;
    std::vector<float> renderScratch;   // ProcessReverseStream's output, unused: allocated once
};

namespace {

// webrtc-audio-processing 0.3 keeps the AEC's kernels in process-wide function pointers
// (WebRtcAec_FilterFar, cft1st_128, ...). Every AEC initialisation sets them to the C versions
// and then to the SSE2 ones, so a canceller processing on another thread at that moment runs a
// frame with the C kernels and its output differs in the last bits: `eval --jobs 2` was not
// bit-identical to `--jobs 1`. Initialising (create, configure, destroy) therefore takes this
// lock exclusively and processing takes it shared. Writers are preferred, so a new canceller is
// never starved by the others' frames; uncontended, a frame pays two atomic operations.
pthread_rwlock_t *libraryLock() {
    static pthread_rwlock_t *lock = [] {
        static pthread_rwlock_t storage;
        pthread_rwlockattr_t attributes;
        pthread_rwlockattr_init(&attributes);
        pthread_rwlockattr_setkind_np(&attributes, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
        pthread_rwlock_init(&storage, &attributes);
        pthread_rwlockattr_destroy(&attributes);
        return &storage;
    }();
    return lock;
}

struct ExclusiveLibraryAccess {
    ExclusiveLibraryAccess() { pthread_rwlock_wrlock(libraryLock()); }
    ~ExclusiveLibraryAccess() { pthread_rwlock_unlock(libraryLock()); }
};

struct SharedLibraryAccess {
    SharedLibraryAccess() { pthread_rwlock_rdlock(libraryLock()); }
    ~SharedLibraryAccess() { pthread_rwlock_unlock(libraryLock()); }
};

int configure(EchoLabAPM *state, EchoLabAPMSettings settings) {
    webrtc::AudioProcessing *apm = state->apm.get();
    if (state->kind == echolab_apm_aec) {
        webrtc::EchoCancellation *aec = apm->echo_cancellation();
        int level = settings.suppression_level < 0 ? 0 : settings.suppression_level > 2 ? 2 : settings.suppression_level;
        int error = aec->set_suppression_level(static_cast<webrtc::EchoCancellation::SuppressionLevel>(level));
        if (error != 0) return error;
        return 0;
    }
    webrtc::EchoControlMobile *aecm = apm->echo_control_mobile();
    int mode = settings.routing_mode < 0 ? 0 : settings.routing_mode > 4 ? 4 : settings.routing_mode;
    int error = aecm->set_routing_mode(static_cast<webrtc::EchoControlMobile::RoutingMode>(mode));
    if (error != 0) return error;
    return aecm->enable_comfort_noise(settings.comfort_noise != 0);
}

}  // namespace

extern "C" EchoLabAPM *echolab_apm_create(EchoLabAPMKind kind, int sample_rate, EchoLabAPMSettings settings, int *error) {
    *error = 0;
    ExclusiveLibraryAccess access;
    bool valid = kind == echolab_apm_aecm ? (sample_rate == 8000 || sample_rate == 16000)
                                          : (sample_rate == 8000 || sample_rate == 16000 || sample_rate == 32000 || sample_rate == 48000);
    if (!valid) {
        *error = webrtc::AudioProcessing::kBadSampleRateError;
        return nullptr;
    }
    webrtc::Config config;
    config.Set<webrtc::ExtendedFilter>(new webrtc::ExtendedFilter(settings.extended_filter != 0));
    config.Set<webrtc::DelayAgnostic>(new webrtc::DelayAgnostic(settings.delay_agnostic != 0));
    std::unique_ptr<EchoLabAPM> state(new EchoLabAPM());
    state->apm.reset(webrtc::AudioProcessing::Create(config));
    if (!state->apm) {
        *error = webrtc::AudioProcessing::kCreationFailedError;
        return nullptr;
    }
    state->kind = kind;
    state->stream = webrtc::StreamConfig(sample_rate, 1);
    state->renderScratch.assign(state->stream.num_frames(), 0.0f);
    webrtc::ProcessingConfig processing = {{state->stream, state->stream, state->stream, state->stream}};
    int code = state->apm->Initialize(processing);
    if (code == 0) {
        state->apm->high_pass_filter()->Enable(false);
        state->apm->noise_suppression()->Enable(false);
        state->apm->gain_control()->Enable(false);
        state->apm->voice_detection()->Enable(false);
        if (kind == echolab_apm_aec) {
            webrtc::EchoCancellation *aec = state->apm->echo_cancellation();
            code = aec->Enable(true);
            if (code == 0) code = aec->enable_drift_compensation(false);
            if (code == 0) code = aec->enable_metrics(true);
            if (code == 0) code = aec->enable_delay_logging(true);
        } else {
            code = state->apm->echo_control_mobile()->Enable(true);
        }
    }
    if (code == 0) code = configure(state.get(), settings);
    if (code != 0) {
        *error = code;
        return nullptr;
    }
    return state.release();
}

extern "C" void echolab_apm_destroy(EchoLabAPM *apm) {
    ExclusiveLibraryAccess access;
    delete apm;
}

extern "C" int echolab_apm_frame_size(const EchoLabAPM *apm) { return static_cast<int>(apm->stream.num_frames()); }

extern "C" int echolab_apm_update(EchoLabAPM *apm, EchoLabAPMSettings settings) {
    ExclusiveLibraryAccess access;
    return configure(apm, settings);
}

extern "C" int echolab_apm_render(EchoLabAPM *apm, const float *frame) {
    SharedLibraryAccess access;
    const float *in[1] = {frame};
    float *out[1] = {apm->renderScratch.data()};
    return apm->apm->ProcessReverseStream(in, apm->stream, apm->stream, out);
}

extern "C" int echolab_apm_capture(EchoLabAPM *apm, const float *input, float *output, int delay_ms) {
    SharedLibraryAccess access;
    int code = apm->apm->set_stream_delay_ms(delay_ms);
    // kBadStreamParameterWarning (delay clamped to 0…500 ms) is a warning, not a failure.
    if (code != 0 && code != webrtc::AudioProcessing::kBadStreamParameterWarning) return code;
    const float *in[1] = {input};
    float *out[1] = {output};
    return apm->apm->ProcessStream(in, apm->stream, apm->stream, out);
}

extern "C" int echolab_apm_stream_has_echo(const EchoLabAPM *apm) {
    if (apm->kind != echolab_apm_aec) return 1;
    SharedLibraryAccess access;
    return apm->apm->echo_cancellation()->stream_has_echo() ? 1 : 0;
}

extern "C" void echolab_apm_metrics(EchoLabAPM *apm, EchoLabAPMMetrics *metrics) {
    *metrics = EchoLabAPMMetrics{-100, -100, -100, -100, -1, -1, 0};
    if (apm->kind != echolab_apm_aec) return;
    SharedLibraryAccess access;
    webrtc::EchoCancellation::Metrics values;
    if (apm->apm->echo_cancellation()->GetMetrics(&values) == 0) {
        metrics->erl_db = values.echo_return_loss.average;
        metrics->erle_db = values.echo_return_loss_enhancement.average;
        metrics->residual_erl_db = values.residual_echo_return_loss.average;
        metrics->a_nlp_db = values.a_nlp.average;
        metrics->has_metrics = 1;
    }
    int median = 0, deviation = 0;
    float poor = 0;
    if (apm->apm->echo_cancellation()->GetDelayMetrics(&median, &deviation, &poor) == 0) {
        metrics->delay_median_ms = median;
        metrics->delay_std_ms = deviation;
    }
}
