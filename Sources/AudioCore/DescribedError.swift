import Foundation

/// An error whose `description` is its message, one printable line: `localizedDescription`
/// gives the same line (without `LocalizedError`, Foundation's reads "The operation could not
/// be completed. (Simulation.CallError error 2.)"), so an app that shows it shows what went wrong.
public protocol DescribedError: LocalizedError, CustomStringConvertible {}

extension DescribedError {
    public var errorDescription: String? { description }
}
