// WebRTC's AEC3 behind echolab_aec3.h: an AudioProcessing module with only the echo canceller
// on, fed 10 ms mono Float32 frames. scripts/build-aec3.sh builds it with Debian's libtgowt-dev
// into libecholab_aec3.a, every symbol but `echolab_aec3_entry` made local (see the header).
#include "echolab_aec3.h"

#include <cstdio>
#include <memory>
#include <mutex>
#include <vector>

#include "api/audio/echo_canceller3_config.h"
#include "api/audio/echo_canceller3_factory.h"
#include "modules/audio_processing/include/audio_processing.h"
#include "rtc_base/logging.h"

struct EchoLabAEC3 {
    rtc::scoped_refptr<webrtc::AudioProcessing> apm;
    webrtc::StreamConfig stream;
    std::vector<float> renderScratch;   // ProcessReverseStream's output, unused: allocated once
};

namespace {

void scale(webrtc::EchoCanceller3Config::Suppressor::MaskingThresholds &mask, float factor) {
    mask.enr_transparent *= factor;
    mask.enr_suppress *= factor;
}

webrtc::EchoCanceller3Config configuration(EchoLabAEC3Settings settings) {
    webrtc::EchoCanceller3Config config;
    size_t blocks = static_cast<size_t>(settings.filter_blocks);
    config.filter.refined.length_blocks = blocks;
    config.filter.coarse.length_blocks = blocks;
    // The initial filters are one block shorter than the converged ones, as in WebRTC's default.
    config.filter.refined_initial.length_blocks = blocks - 1;
    config.filter.coarse_initial.length_blocks = blocks - 1;
    auto &suppressor = config.suppressor;
    scale(suppressor.normal_tuning.mask_lf, settings.masking_scale);
    scale(suppressor.normal_tuning.mask_hf, settings.masking_scale);
    scale(suppressor.nearend_tuning.mask_lf, settings.masking_scale);
    scale(suppressor.nearend_tuning.mask_hf, settings.masking_scale);
    suppressor.dominant_nearend_detection.enr_threshold = settings.nearend_enr_threshold;
    return config;
}

// WebRTC logs its configuration to stderr at every creation; EchoLab's output is its reports.
void silenceLogging() {
    static std::once_flag once;
    std::call_once(once, [] {
        rtc::LogMessage::LogToDebug(rtc::LS_NONE);
        rtc::LogMessage::SetLogToStderr(false);
    });
}

void fail(char *error, size_t size, const char *reason) {
    if (error && size > 0) std::snprintf(error, size, "%s", reason);
}

EchoLabAEC3 *create(int sampleRate, EchoLabAEC3Settings settings, char *error, size_t errorSize) {
    silenceLogging();
    if (sampleRate != 16000 && sampleRate != 32000 && sampleRate != 48000) {
        fail(error, errorSize, "AEC3 runs at 16000, 32000 or 48000 Hz");
        return nullptr;
    }
    if (settings.filter_blocks < 2 || settings.filter_blocks > 100) {
        fail(error, errorSize, "AEC3's filter length must be 2 to 100 blocks of 4 ms");
        return nullptr;
    }
    webrtc::EchoCanceller3Config config = configuration(settings);
    if (!webrtc::EchoCanceller3Config::Validate(&config)) {
        fail(error, errorSize, "AEC3 refused its configuration");
        return nullptr;
    }
    auto state = std::make_unique<EchoLabAEC3>();
    state->apm = webrtc::AudioProcessingBuilder()
                     .SetEchoControlFactory(std::make_unique<webrtc::EchoCanceller3Factory>(config))
                     .Create();
    if (!state->apm) {
        fail(error, errorSize, "WebRTC could not create its audio processing module");
        return nullptr;
    }
    // Only the echo canceller: EchoLab measures the canceller, not WebRTC's noise suppression or
    // gain control. AEC3 keeps its own high-pass filter on (WebRTC enforces it with AEC3).
    webrtc::AudioProcessing::Config apmConfig;
    apmConfig.echo_canceller.enabled = true;
    apmConfig.echo_canceller.mobile_mode = false;
    state->apm->ApplyConfig(apmConfig);
    state->stream = webrtc::StreamConfig(sampleRate, 1);
    state->renderScratch.assign(state->stream.num_frames(), 0.0f);
    webrtc::ProcessingConfig processing = {{state->stream, state->stream, state->stream, state->stream}};
    int code = state->apm->Initialize(processing);
    if (code != 0) {
        char reason[96];
        std::snprintf(reason, sizeof reason, "WebRTC could not initialise AEC3 (error %d)", code);
        fail(error, errorSize, reason);
        return nullptr;
    }
    return state.release();
}

void destroy(EchoLabAEC3 *aec) { delete aec; }

int render(EchoLabAEC3 *aec, const float *frame) {
    const float *in[1] = {frame};
    float *out[1] = {aec->renderScratch.data()};
    return aec->apm->ProcessReverseStream(in, aec->stream, aec->stream, out);
}

int capture(EchoLabAEC3 *aec, const float *input, float *output) {
    // No known delay, as in an app that reports none: AEC3 estimates the render→capture delay
    // itself and uses the reported one only with an external delay estimator.
    aec->apm->set_stream_delay_ms(0);
    const float *in[1] = {input};
    float *out[1] = {output};
    return aec->apm->ProcessStream(in, aec->stream, aec->stream, out);
}

void statistics(EchoLabAEC3 *aec, EchoLabAEC3Statistics *out) {
    *out = EchoLabAEC3Statistics{};
    webrtc::AudioProcessingStats stats = aec->apm->GetStatistics();
    if (stats.echo_return_loss) { out->erl_db = *stats.echo_return_loss; out->has_erl = 1; }
    if (stats.echo_return_loss_enhancement) { out->erle_db = *stats.echo_return_loss_enhancement; out->has_erle = 1; }
    if (stats.divergent_filter_fraction) {
        out->divergent_filter_fraction = *stats.divergent_filter_fraction;
        out->has_divergent_filter_fraction = 1;
    }
    if (stats.delay_ms) { out->delay_ms = *stats.delay_ms; out->has_delay = 1; }
}

const EchoLabAEC3API api = {ECHOLAB_AEC3_API_VERSION, create, destroy, render, capture, statistics};

}  // namespace

extern "C" const EchoLabAEC3API *echolab_aec3_entry(void) { return &api; }
