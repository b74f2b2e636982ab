public import AppStoreEngine
public import Foundation

extension NotificationSender {
    /// Moves the notification URLs earlier versions kept in files — `<name>.notification-urls.json` in
    /// `tenantFolder` (`<data-dir>/tenants`), one per tenant — into each tenant's row of `storage`, and renames each
    /// file to `<file>.imported`, so it is read once and shows it was. `storekit serve` runs it when it opens a data
    /// directory, so URLs set before they were kept in storage still hold.
    ///
    /// A tenant that has destinations stored keeps them: the file is older. Without files, nothing happens.
    ///
    /// - Returns: How many tenants' URLs were stored.
    /// - Throws: `StoreError.storageFailure` when a file is not a destinations file the server wrote, cannot be
    ///   renamed, or its URLs cannot be stored; that file stays then, to be imported at the next try.
    @discardableResult
    public static func importDestinationFiles(tenantFolder: URL, into storage: any Storage) async throws(StoreError) -> Int {
        let suffix = ".notification-urls.json"
        let files = (try? FileManager.default.contentsOfDirectory(atPath: tenantFolder.path)) ?? []
        var stored = 0
        for file in files.sorted() where file.hasSuffix(suffix) {
            let name = String(file.dropLast(suffix.count))
            guard TenantDirectory.isValidName(name) else { continue }
            if try await importDestinations(from: tenantFolder.appendingPathComponent(file), tenant: name, into: storage) { stored += 1 }
        }
        return stored
    }

    /// Stores the destinations of one file for `tenant` unless it has some, and renames the file; whether they were stored.
    private static func importDestinations(from file: URL, tenant: String, into storage: any Storage) async throws(StoreError) -> Bool {
        let destinations: NotificationDestinations
        do {
            destinations = try JSONDecoder().decode(NotificationDestinations.self, from: Data(contentsOf: file))
        } catch {
            throw .storageFailure("\(file.path) is not a notification URL file the server wrote (\(error)). Move it away and set the URLs again (storekit notifications url set).")
        }
        let stored: Bool
        do {
            stored = try await storage.transaction(tenant: tenant) { transaction in
                guard try transaction.notificationDestinations() == nil else { return false }
                try transaction.write(.saveNotificationDestinations(destinations))
                return true
            }
        } catch let error as StoreError {
            throw error
        } catch {
            throw .storageFailure("The notification URLs of \(file.path) cannot be stored: \(error). Check the storage and start again.")
        }
        try markImported(file, holding: "The notification URLs")
        return stored
    }
}
