import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The repository's root, found from this file's location.
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// The demo configuration the README uses.
let demoConfiguration = repositoryRoot.appendingPathComponent("Examples/Demo.storekit").path

/// The `storekit` executable built next to the test bundle.
let storekitExecutable: URL = {
    let testBinary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    var directory = testBinary.deletingLastPathComponent()
    while directory.path != "/" {
        let candidate = directory.appendingPathComponent("storekit")
        if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        directory = directory.deletingLastPathComponent()
    }
    return repositoryRoot.appendingPathComponent(".build/debug/storekit")
}()

/// What a finished process printed and returned.
struct StorekitRun {
    var status: Int32
    var output: String
    var errorOutput: String
}

/// Runs `storekit` with `arguments` to completion.
func storekit(_ arguments: [String], environment: [String: String] = [:]) throws -> StorekitRun {
    try run(storekitExecutable, arguments, environment: environment)
}

/// Runs a tool found on the PATH (`python3`, `openssl`) to completion.
func tool(_ name: String, _ arguments: [String]) throws -> StorekitRun {
    try run(URL(fileURLWithPath: "/usr/bin/env"), [name] + arguments)
}

/// Runs an executable to completion, collecting what it prints.
func run(_ executable: URL, _ arguments: [String], environment: [String: String] = [:]) throws -> StorekitRun {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    let output = Pipe()
    let errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    try process.run()
    // Read both pipes before waiting, so a large output cannot block the child.
    let outputData = output.fileHandleForReading.readDataToEndOfFile()
    let errorData = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return StorekitRun(
        status: process.terminationStatus,
        output: String(decoding: outputData, as: UTF8.self),
        errorOutput: String(decoding: errorData, as: UTF8.self)
    )
}

/// A fresh, empty data directory.
func temporaryDataDirectory() -> URL {
    FileManager.default.temporaryDirectory.appendingPathComponent("openstorekit-cli-\(UUID().uuidString)")
}

/// Fetches a URL on loopback and returns the status and body.
func httpGet(_ url: URL) async throws -> (status: Int, body: Data) {
    let (data, response) = try await URLSession.shared.data(from: url)
    return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
}
