// Reports are JSON values: users of Reporting get `JSONValue` with it.
@_exported import EchoLabJSON
