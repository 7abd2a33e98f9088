import ArgumentParser
import AudioCore
import Foundation
import Evaluation
import Simulation

@main
struct EchoLab: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "echolab",
        abstract: "Runs VoIP custom-audio-device pipelines offline on a virtual clock and measures echo cancellation.",
        discussion: "A scenario file describes one call: far end, near end, noise, echo path, AEC mode, the custom mic and speaker in use and a timeline of device switches. `echolab run` simulates it much faster than real time, bit-for-bit reproducibly, and writes the taps and a report. `echolab metrics` scores any recorded WAVs the same way, `echolab process` runs a canceller on a recording, `echolab eval` compares AEC modes over a corpus of scenarios and recordings, and `echolab compare` gates CI on a baseline. Exit codes: 0 success; 1 bad input, a failed run or (compare) a regression; 2 compare cannot read a file; 3 a check failed (golden vectors, findings with --strict); 64 usage error; 129/130/143 interrupted by SIGHUP/SIGINT/SIGTERM (compare and vectors generate, which take a moment, are ended by the signal itself). Each command's help gives its own.",
        version: EchoLabVersion.current,
        subcommands: [RunCommand.self, ProcessCommand.self, MetricsCommand.self, EvalCommand.self, MergeCommand.self, CompareCommand.self, VectorsCommand.self,
                      PluginHostCommand.self]
    )

    /// A reader of stdout or stderr that goes away (`echolab eval … | head`) must not kill a
    /// command before it writes its reports: SIGPIPE is ignored, and the writes fail with EPIPE
    /// instead, which the commands survive (`writeStandardError`; `writeStandardOutput` fails the command).
    static func main() {
        signal(SIGPIPE, SIG_IGN)
        // Plugins run in a child `echolab plugin-host` of this binary, whatever its file is named.
        PluginHost.hostInThisProgram()
        refuseHelpForUnknownCommands(Array(CommandLine.arguments.dropFirst()))
        main(nil)
    }

    /// `help NAME` for a name that is no command is a usage error (exit 64), as `echolab NAME`
    /// is: argument-parser would print the overview and exit 0, as if it were one.
    private static func refuseHelpForUnknownCommands(_ arguments: [String]) {
        guard arguments.first == "help" else { return }
        var command: any ParsableCommand.Type = EchoLab.self
        var names: [String] = []
        for name in arguments.dropFirst() where !name.hasPrefix("-") {
            guard let sub = command.configuration.subcommands.first(where: { ($0.configuration.commandName ?? $0._commandName) == name }) else {
                guard command != EchoLab.self else {
                    exit(withError: ValidationError("'\(name)' is not a command of echolab; see 'echolab help'"))
                }
                // argument-parser's usage for a subcommand on its own leaves out its parents.
                let path = (["echolab"] + names).joined(separator: " ")
                let help = (["echolab", "help"] + names).joined(separator: " ")
                let hasSubcommands = !command.configuration.subcommands.isEmpty
                writeStandardError("""
                    Error: '\(name)' is not a command of \(path)\(hasSubcommands ? "" : ", which has none"); see '\(help)'
                    \(hasSubcommands ? "Usage: \(path) <subcommand>\n" : "")  See '\(path) --help' for more information.

                    """)
                Foundation.exit(ExitCode.validationFailure.rawValue)
            }
            command = sub
            names.append(name)
        }
    }
}
