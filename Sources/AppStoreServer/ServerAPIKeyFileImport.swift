public import AppStoreEngine
public import Foundation

extension ServerAPIKeyRing {
    /// Moves every key file of a data directory into `storage` (see ``importKeys(from:)``): the server's keys of
    /// `serverFile` (`<data-dir>/api-keys.json`), and each tenant's of `<name>.api-keys.json` in `tenantFolder`
    /// (`<data-dir>/tenants`). `storekit serve` and `storekit keys` run it when they open a data directory, so keys
    /// made before they were kept in storage keep working.
    ///
    /// - Returns: How many keys were added.
    /// - Throws: `StoreError.storageFailure` when a file is not a key list the store wrote or its keys cannot be stored.
    @discardableResult
    public static func importKeyFiles(serverFile: URL, tenantFolder: URL, into storage: any Storage) async throws(StoreError) -> Int {
        var added = try await ServerAPIKeyRing(storage: storage).importKeys(from: serverFile)
        let suffix = ".api-keys.json"
        let files = (try? FileManager.default.contentsOfDirectory(atPath: tenantFolder.path)) ?? []
        for file in files.sorted() where file.hasSuffix(suffix) {
            let name = String(file.dropLast(suffix.count))
            guard TenantDirectory.isValidName(name) else { continue }
            added += try await ServerAPIKeyRing(storage: storage, tenant: name).importKeys(from: tenantFolder.appendingPathComponent(file))
        }
        return added
    }

    /// Moves the keys of a key file, as versions before keys were kept in storage wrote them (`<data-dir>/api-keys.json`
    /// for the server's keys, `<data-dir>/tenants/<name>.api-keys.json` for a tenant's), into this ring, and renames
    /// the file to `<file>.imported`, so it is read once and shows it was.
    ///
    /// A key whose identifier the ring's storage already holds, under any tenant, is left as stored; importing the
    /// same file again changes nothing. Without the file, nothing happens.
    ///
    /// - Returns: How many keys were added.
    /// - Throws: `StoreError.storageFailure` when the file is not a key list the store wrote, cannot be renamed, or the
    ///   keys cannot be stored; the file stays then, to be imported at the next try.
    @discardableResult
    public func importKeys(from file: URL) async throws(StoreError) -> Int {
        guard FileManager.default.fileExists(atPath: file.path) else { return 0 }
        let keys: [ServerAPIKey]
        do {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            keys = try decoder.decode([ServerAPIKey].self, from: Data(contentsOf: file))
        } catch {
            throw .storageFailure("\(file.path) is not a key list the store wrote (\(error)). Move it away and create the keys again.")
        }
        var added = 0
        for key in keys {
            do {
                try await add(key)
                added += 1
            } catch where error == .apiKeyExists {
                continue
            }
        }
        try markImported(file, holding: "The keys")
        return added
    }
}

/// Renames a file of an earlier version whose contents are now in storage to `<name>.imported`, so it is imported
/// once. Another process sharing the data directory may have renamed it meanwhile; that is no error.
///
/// - Throws: `StoreError.storageFailure` naming `contents` (what the file held) when the file stays in place.
func markImported(_ file: URL, holding contents: String) throws(StoreError) {
    let imported = file.appendingPathExtension("imported")
    do {
        try? FileManager.default.removeItem(at: imported)
        try FileManager.default.moveItem(at: file, to: imported)
    } catch where !FileManager.default.fileExists(atPath: file.path) {
        // Another process sharing the data directory imported and renamed it meanwhile.
    } catch {
        throw .storageFailure("\(contents) of \(file.path) are stored now, but the file cannot be renamed to \(imported.lastPathComponent): \(error.localizedDescription). Rename or delete it.")
    }
}
