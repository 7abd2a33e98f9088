import FuzzDriver

/// The process entry point: SwiftPM links `main` as an alias of `fuzz_audio_main`, so this hands the
/// command line to libFuzzer's driver with the target's test function.
@_cdecl("fuzz_audio_main")
public func fuzz_audioMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv) { bytes, size in fuzzAudio(bytes, size) }
}
