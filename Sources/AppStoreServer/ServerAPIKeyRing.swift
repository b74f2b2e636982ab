public import Foundation
import Synchronization

/// The keys App Store Server API tokens may be signed with, shared by every tenant of a server, and kept in a file
/// (`<data-dir>/api-keys.json`) when one is given.
///
/// Keys made or revoked through the control API take effect at once and are saved; keys `storekit keys create` or
/// `revoke` writes to the file while the server runs are picked up by the next request, since the ring re-reads the
/// file when it changed.
public final class ServerAPIKeyRing: Sendable {
    private struct State {
        var keys: [String: ServerAPIKey]
        var fileDate: Date?
    }

    private let file: URL?
    private let state: Mutex<State>

    /// A ring of `keys`, kept in memory only.
    public init(keys: [ServerAPIKey] = []) {
        file = nil
        state = Mutex(State(keys: Self.index(keys)))
    }

    /// The ring kept in `file`, read now.
    ///
    /// - Throws: ``ServerAPIKeyFileError`` when the file exists and is not a key list the store wrote.
    public init(file: URL) throws(ServerAPIKeyFileError) {
        self.file = file
        let (keys, date) = try Self.read(file)
        state = Mutex(State(keys: Self.index(keys), fileDate: date))
    }

    /// The keys, sorted by creation date; re-read from the file when another process changed it.
    public var keys: [ServerAPIKey] {
        refreshed().values.sorted { ($0.created, $0.keyID) < ($1.created, $1.keyID) }
    }

    /// The key a token names.
    func key(_ keyID: String) -> ServerAPIKey? {
        refreshed()[keyID]
    }

    /// Makes a key for `issuerID`, keeps it (and saves it), and returns it with its private half, a `.p8` file's PEM.
    ///
    /// - Throws: ``ServerAPIKeyFileError`` when the file cannot be written; the key is not kept then.
    public func create(issuerID: String, created: Date) throws(ServerAPIKeyFileError) -> (key: ServerAPIKey, privateKeyPEM: String) {
        let made = ServerAPIKey.generate(issuerID: issuerID, created: created)
        try change { $0[made.key.keyID] = made.key }
        return made
    }

    /// Revokes a key: tokens it signs are refused from now on.
    ///
    /// - Returns: the revoked key, or `nil` when the ring has no such key.
    /// - Throws: ``ServerAPIKeyFileError`` when the file cannot be written; nothing changes then.
    @discardableResult
    public func revoke(_ keyID: String) throws(ServerAPIKeyFileError) -> ServerAPIKey? {
        var revoked: ServerAPIKey?
        try change { keys in
            keys[keyID]?.revoked = true
            revoked = keys[keyID]
        }
        return revoked
    }

    private func change(_ body: (inout [String: ServerAPIKey]) -> Void) throws(ServerAPIKeyFileError) {
        _ = refreshed()
        try state.withLock { (state: inout State) throws(ServerAPIKeyFileError) in
            var keys = state.keys
            body(&keys)
            if let file {
                try Self.write(keys.values.sorted { ($0.created, $0.keyID) < ($1.created, $1.keyID) }, to: file)
                state.fileDate = Self.modificationDate(file)
            }
            state.keys = keys
        }
    }

    /// The keys, after re-reading the file if its modification date moved. A file that no longer reads keeps the keys
    /// last read: a half-written file from another process must not lock every backend out.
    private func refreshed() -> [String: ServerAPIKey] {
        guard let file else { return state.withLock { $0.keys } }
        let date = Self.modificationDate(file)
        return state.withLock { state in
            if date != state.fileDate, let (keys, readDate) = try? Self.read(file) {
                state.keys = Self.index(keys)
                state.fileDate = readDate
            }
            return state.keys
        }
    }

    private static func index(_ keys: [ServerAPIKey]) -> [String: ServerAPIKey] {
        Dictionary(keys.map { ($0.keyID, $0) }, uniquingKeysWith: { _, last in last })
    }

    private static func modificationDate(_ file: URL) -> Date? {
        (try? FileManager.default.attributesOfItem(atPath: file.path))?[.modificationDate] as? Date
    }

    private static func read(_ file: URL) throws(ServerAPIKeyFileError) -> ([ServerAPIKey], Date?) {
        guard FileManager.default.fileExists(atPath: file.path) else { return ([], nil) }
        do {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            return (try decoder.decode([ServerAPIKey].self, from: Data(contentsOf: file)), modificationDate(file))
        } catch {
            throw ServerAPIKeyFileError(message: "\(file.path) is not a key list the store wrote (\(error)). Move it away and create the keys again.")
        }
    }

    private static func write(_ keys: [ServerAPIKey], to file: URL) throws(ServerAPIKeyFileError) {
        do {
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            let encoder = JSONEncoder()
            encoder.dateEncodingStrategy = .iso8601
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try encoder.encode(keys).write(to: file, options: .atomic)
        } catch {
            throw ServerAPIKeyFileError(message: "Cannot save the keys to \(file.path): \(error.localizedDescription).")
        }
    }
}

/// The key file cannot be read or written; the message names the file and what to do.
public struct ServerAPIKeyFileError: Error, Sendable, CustomStringConvertible {
    /// What went wrong and what to do.
    public let message: String
    /// The message.
    public var description: String { message }
}
