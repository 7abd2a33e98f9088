// `import EchoLab`: the whole public API in one import, for app code and example packages.
//
// This file is the one place for `@_exported`: every other module imports what it uses by name,
// so the layers stay visible in each file's imports (see the layering note in Package.swift).

@_exported import AudioCore
@_exported import AudioInterop
@_exported import EchoCancellation
@_exported import EchoLabJSON
@_exported import Evaluation
@_exported import Metrics
@_exported import Reporting
@_exported import ScenarioFiles
@_exported import Simulation
@_exported import VirtualTime
