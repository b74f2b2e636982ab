import Foundation
import TestProcesses
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The repository's root.
let repositoryRoot = ChildProcess.packageRoot

/// The demo configuration the README uses.
let demoConfiguration = repositoryRoot.appendingPathComponent("Examples/Demo.storekit").path

/// What a finished `storekit` or tool process returned and printed.
typealias StorekitRun = ChildProcess.Finished

/// Runs `storekit` with `arguments` to completion.
func storekit(_ arguments: [String], environment: [String: String] = [:]) async throws -> StorekitRun {
    try await ChildProcess(try ChildProcess.builtExecutable("storekit"), arguments, environment: environment).finished()
}

/// Runs a tool found on the PATH (`python3`, `openssl`) to completion.
func tool(_ name: String, _ arguments: [String]) async throws -> StorekitRun {
    try await ChildProcess.tool(name, arguments).finished()
}

/// Starts every `storekit` command line at once, then waits for all of them: processes racing on one store.
func storekitConcurrently(_ commandLines: [[String]]) async throws -> [StorekitRun] {
    let executable = try ChildProcess.builtExecutable("storekit")
    let children = try commandLines.map { try ChildProcess(executable, $0) }
    var runs: [StorekitRun] = []
    for child in children {
        runs.append(try await child.finished())
    }
    return runs
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

/// Starts `storekit serve` on the demo configuration and returns it, once it listens, with its port and base URL.
func startStorekitServe(dataDirectory: URL, port: Int = 0) async throws -> (server: ChildProcess, port: Int, address: String) {
    let server = try ChildProcess(
        try ChildProcess.builtExecutable("storekit"),
        ["serve", "--config", demoConfiguration, "--data-dir", dataDirectory.path, "--port", String(port)]
    )
    let line = try await server.waitForLine(containing: "http://127.0.0.1:")
    let address = try #require(line.split(separator: " ").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }, "no address in \(line)")
    let bound = try #require(address.split(separator: ":").last.flatMap { Int($0) }, "no port in \(line)")
    return (server, bound, address)
}

