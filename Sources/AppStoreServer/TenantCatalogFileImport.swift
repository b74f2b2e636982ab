public import AppStoreEngine
public import Foundation
import StoreKitConfiguration

extension TenantDirectory {
    /// Moves the catalogs earlier versions kept in files — `<name>.storekit` in `tenantFolder` (`<data-dir>/tenants`),
    /// one per tenant created or given a catalog on `storekit serve` — into each tenant's row of `storage`, and renames
    /// each file to `<file>.imported`, so it is read once and shows it was. `storekit serve` runs it when it opens a
    /// data directory, so tenants created before catalogs were kept in storage still sell their own.
    ///
    /// A tenant that has a catalog stored keeps it: the file is older. `serverTenant`'s file, if any, is left alone,
    /// as that tenant always sells the server's configuration. Without files, nothing happens.
    ///
    /// - Returns: How many tenants' catalogs were stored.
    /// - Throws: `StoreError.storageFailure` when a file is not a usable `.storekit` file, cannot be renamed, or its
    ///   catalog cannot be stored; that file stays then, to be imported at the next try.
    @discardableResult
    public static func importCatalogFiles(tenantFolder: URL, into storage: any Storage, serverTenant: String? = nil) async throws(StoreError) -> Int {
        let suffix = ".storekit"
        let files = (try? FileManager.default.contentsOfDirectory(atPath: tenantFolder.path)) ?? []
        var stored = 0
        for file in files.sorted() where file.hasSuffix(suffix) {
            let name = String(file.dropLast(suffix.count))
            guard isValidName(name), name != serverTenant else { continue }
            if try await importCatalog(from: tenantFolder.appendingPathComponent(file), tenant: name, into: storage) { stored += 1 }
        }
        return stored
    }

    /// Stores the catalog of one file for `tenant` unless it has one, and renames the file; whether it was stored.
    private static func importCatalog(from file: URL, tenant: String, into storage: any Storage) async throws(StoreError) -> Bool {
        let configuration: StoreKitConfigurationFile
        do {
            configuration = try StoreKitConfigurationFile.load(contentsOf: file)
        } catch {
            throw .storageFailure("\(file.path) is not a usable .storekit file (\(error.description)). Fix it, or move it away and give tenant \(tenant) its catalog again (PUT /control/tenants/\(tenant)/catalog).")
        }
        let document = configuration.encodedData()
        let stored: Bool
        do {
            stored = try await storage.transaction(tenant: tenant) { transaction in
                guard try transaction.storedCatalog().document == nil else { return false }
                try transaction.write(.saveCatalog(document))
                return true
            }
        } catch let error as StoreError {
            throw error
        } catch {
            throw .storageFailure("The catalog of \(file.path) cannot be stored: \(error). Check the storage and start again.")
        }
        try markImported(file, holding: "The catalog")
        return stored
    }
}
