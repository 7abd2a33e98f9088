// swift-tools-version:6.0
import PackageDescription

// Layers point one way, down: C modules → AudioInterop; VirtualTime and AudioCore import nothing;
// Simulation and Metrics sit on those; ScenarioFiles reads and writes scenario files into
// Simulation's typed values (Simulation parses nothing) and reads corpora (folders, manifests,
// AEC-Challenge layouts) into items; Evaluation runs, measures and judges things — a call, a
// recording, a corpus, its per-mode statistics, the gate — into one typed result model (whose
// JSON is its own serialisation) and hands each finished result to a renderer; Reporting renders
// that model (Markdown, HTML); the `echolab` executable is a thin layer of commands on top that
// wires Reporting in.
let package = Package(
    name: "EchoLab",
    products: [
        .executable(name: "echolab", targets: ["echolab"]),
        // `import EchoLab` (the umbrella target, first) or any of its modules one by one.
        .library(name: "EchoLab", targets: ["EchoLab", "VirtualTime", "AudioCore", "AudioInterop", "EchoCancellation", "EchoLabJSON", "Simulation", "ScenarioFiles", "Metrics", "Reporting", "Evaluation"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
    ],
    targets: [
        // Thin system-library targets: a module map and a shim header each, found through pkg-config.
        .systemLibrary(name: "CSndFile", pkgConfig: "sndfile", providers: [.apt(["libsndfile1-dev"])]),
        .systemLibrary(name: "CSampleRate", pkgConfig: "samplerate", providers: [.apt(["libsamplerate0-dev"])]),
        .systemLibrary(name: "CSpeexDSP", pkgConfig: "speexdsp", providers: [.apt(["libspeexdsp-dev"])]),
        .systemLibrary(name: "CFFTW", pkgConfig: "fftw3f", providers: [.apt(["libfftw3-dev"])]),
        // Counts speexdsp's canceller resets instead of letting it print them (see its header).
        .target(name: "CSpeexWarnings"),
        // webrtc-audio-processing is C++: the system library only carries its pkg-config flags to
        // a tiny extern "C" shim, which is all Swift sees.
        .systemLibrary(name: "CWebRTCAudioProcessing", pkgConfig: "webrtc-audio-processing",
                       providers: [.apt(["libwebrtc-audio-processing-dev"])]),
        .target(name: "CWebRTCShim", dependencies: ["CWebRTCAudioProcessing"],
                cxxSettings: [.define("WEBRTC_POSIX"), .define("WEBRTC_LINUX"), .define("WEBRTC_AUDIO_PROCESSING_ONLY_BUILD")]),
        // WebRTC's AEC3 from Debian's static tg_owt, whose symbols clash with webrtc-audio-processing
        // 0.3's: `make deps` (scripts/build-aec3.sh) links it into libecholab_aec3.a with one global
        // symbol, and this module links that.
        .systemLibrary(name: "CEchoLabAEC3", pkgConfig: "echolab-aec3"),
        // Canceller plugins (include/echolab_canceller.h, the header plugin authors include) run in
        // a child process: its side and the parent's, in C.
        .target(name: "CEchoLabPluginHost"),

        .target(name: "VirtualTime"),
        // JSON values: the strict reader for files people write, the canonical writer for reports.
        .target(name: "EchoLabJSON", dependencies: ["AudioCore"]),
        .target(name: "AudioCore"),
        .target(name: "AudioInterop", dependencies: ["AudioCore", "CSndFile", "CSampleRate", "CSpeexDSP", "CFFTW", "CWebRTCShim", "CEchoLabAEC3", "CEchoLabPluginHost", "CSpeexWarnings"]),
        .target(name: "Metrics", dependencies: ["AudioCore", "AudioInterop"]),
        // EchoLab's own canceller: Swift DSP on AudioInterop's FFT, behind Simulation's EchoControl.
        .target(name: "EchoCancellation", dependencies: ["AudioCore", "AudioInterop"]),
        .target(name: "Simulation", dependencies: ["VirtualTime", "AudioCore", "AudioInterop", "EchoCancellation"]),
        // Scenario files: read strictly (every key checked, input files probed), validated and
        // written, into and from Simulation's typed values.
        .target(name: "ScenarioFiles", dependencies: ["Simulation", "VirtualTime", "AudioCore", "AudioInterop", "EchoLabJSON"]),
        // Runs and judges; hands each finished result to a `ReportRenderer` and renders nothing.
        .target(name: "Evaluation", dependencies: ["Simulation", "ScenarioFiles", "Metrics", "VirtualTime", "AudioInterop", "AudioCore", "EchoLabJSON",
                                                   .product(name: "Crypto", package: "swift-crypto")]),
        // Renders Evaluation's result model (its `ReportPages` is the renderer the executable wires in).
        .target(name: "Reporting", dependencies: ["Evaluation", "Simulation", "Metrics", "AudioInterop", "AudioCore", "EchoLabJSON"]),
        // The umbrella for app code: `import EchoLab` re-exports the public modules (the one
        // place for `@_exported`). Not the `echolab` executable below: module names differ in case.
        .target(name: "EchoLab", dependencies: ["VirtualTime", "AudioCore", "AudioInterop", "EchoCancellation", "EchoLabJSON", "Simulation", "ScenarioFiles", "Metrics",
                                                "Reporting", "Evaluation"]),
        .executableTarget(name: "echolab", dependencies: [
            "Simulation", "ScenarioFiles", "Metrics", "Reporting", "Evaluation", "AudioInterop", "AudioCore", "EchoLabJSON",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .executableTarget(name: "echolab-bench", dependencies: ["Simulation", "Metrics", "Reporting", "Evaluation", "AudioInterop", "AudioCore", "VirtualTime",
                                                           "EchoCancellation"],
                          path: "Benchmarks/EchoLabBench"),

        // Written the way PlanetKit's guide writes its AudioFileMicrophone and AudioFileRecorder.
        .executableTarget(name: "CustomDevicesExample", dependencies: ["Simulation", "AudioCore", "AudioInterop", "VirtualTime"],
                          path: "Examples/CustomDevices"),

        // One test target per module, unit tests beside what they test; none runs the binary.
        .testTarget(name: "VirtualTimeTests", dependencies: ["VirtualTime"]),
        .testTarget(name: "AudioCoreTests", dependencies: ["AudioCore"]),
        .testTarget(name: "AudioInteropTests", dependencies: ["AudioInterop", "AudioCore", "EchoLabTestSupport"]),
        .testTarget(name: "EchoLabJSONTests", dependencies: ["EchoLabJSON", "AudioCore"]),
        .testTarget(name: "EchoCancellationTests", dependencies: ["EchoCancellation", "AudioCore", "AudioInterop"]),
        .testTarget(name: "MetricsTests", dependencies: ["Metrics", "AudioInterop", "AudioCore", "EchoLabJSON", "EchoLabTestSupport"]),
        // Some call tests describe their call as a scenario file (ScenarioFiles reads it).
        .testTarget(name: "SimulationTests", dependencies: ["Simulation", "ScenarioFiles", "AudioInterop", "AudioCore", "VirtualTime", "Metrics"]),
        .testTarget(name: "ScenarioFilesTests", dependencies: ["ScenarioFiles", "Simulation", "AudioInterop", "AudioCore", "EchoLabJSON"]),
        .testTarget(name: "ReportingTests", dependencies: ["Reporting", "Evaluation", "Simulation", "Metrics", "AudioCore", "EchoLabJSON"]),
        .testTarget(name: "EvaluationTests", dependencies: ["Evaluation", "Reporting", "Simulation", "ScenarioFiles", "Metrics", "AudioInterop",
                                                           "AudioCore", "EchoLabJSON", "EchoLabTestSupport"]),

        // Counts the heap allocations a test's thread makes (its malloc stands in for the C
        // library's in the test executable), for the per-frame allocation tests.
        .target(name: "AllocationCounter", path: "Tests/AllocationCounter"),
        .testTarget(name: "AllocationTests", dependencies: ["AllocationCounter", "Evaluation", "ScenarioFiles", "Simulation", "EchoCancellation", "AudioInterop", "AudioCore"]),

        // Helpers of the tests that run the `echolab` command as people do (its path, temporary
        // folders, odd sound files written through libsndfile itself).
        .target(name: "EchoLabTestSupport", dependencies: ["CSndFile"], path: "Tests/EchoLabTestSupport"),
        // The command, run as a user runs it. Depending on the `echolab` product makes a missing
        // binary a build error, never a skipped test.
        // Plugins/ holds the C source of the plugins the tests build with cc.
        .testTarget(name: "EchoLabCLITests", dependencies: ["echolab", "CustomDevicesExample", "EchoLabTestSupport", "Simulation", "ScenarioFiles", "Metrics", "Reporting",
                                                           "Evaluation", "AudioInterop", "AudioCore", "EchoLabJSON"],
                    exclude: ["Plugins"]),
        // The long and corpus-wide checks (hour-long and 10-minute calls, golden taps, the default
        // corpus in every mode, the example package): `make test-long` runs them on the release
        // binary; `make test` leaves this target out.
        .testTarget(name: "EchoLabLongTests", dependencies: ["echolab", "EchoLabTestSupport", "Simulation", "Metrics", "Reporting",
                                                            "Evaluation", "AudioInterop", "AudioCore", "EchoLabJSON"]),
    ]
)
