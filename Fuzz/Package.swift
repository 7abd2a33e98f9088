// swift-tools-version:6.0
import PackageDescription

// libFuzzer targets, kept in their own package so the root package's `swift build` / `swift test`
// never see them: they have no `main` (libFuzzer brings it) and only link with
// `-sanitize=fuzzer`. Built by `make fuzz` (see the Makefile) into .build-fuzz; the root package is
// a path dependency, so the fuzzed code is exactly the code the CLI ships.
let package = Package(
    name: "EchoLabFuzz",
    dependencies: [
        .package(name: "EchoLab", path: ".."),
    ],
    targets: [
        .target(name: "FuzzDriver"),
        .executableTarget(name: "fuzz-scenario",
                          dependencies: ["FuzzDriver", .product(name: "EchoLab", package: "EchoLab")],
                          swiftSettings: [.unsafeFlags(["-parse-as-library"])]),
        .executableTarget(name: "fuzz-audio",
                          dependencies: ["FuzzDriver", .product(name: "EchoLab", package: "EchoLab")],
                          swiftSettings: [.unsafeFlags(["-parse-as-library"])]),
    ]
)
