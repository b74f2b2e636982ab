import AppStoreFormats
import Foundation
public import StoreKitConfiguration

/// A catalog an engine sells, with the version of the tenant's stored catalog it reflects and the promotional offer
/// keys that go with it.
struct KnownCatalog: Sendable {
    var version: Int
    var catalog: Catalog
    var offerKeys: [PromotionalOfferKey]
}

extension StoreEngine {
    /// Stores `configuration` as what the tenant sells: every engine of the tenant on the same storage, in this process
    /// or another, sells its products (and accepts promotional offers signed with its key) from its next operation,
    /// and so does the tenant when it is opened again. Purchases, settings and the clock stay.
    ///
    /// The stored document is the configuration's JSON (`StoreKitConfigurationFile.encodedData()`), which keeps every
    /// key of the file, known or not.
    ///
    /// - Throws: ``StoreError/storageFailure`` when the catalog cannot be stored; nothing changes then.
    /// A price raised on a plan subscribers renew into is announced to them as a raise that needs no consent
    /// (``announcePriceIncreases(to:)``).
    public func setCatalog(_ configuration: StoreKitConfigurationFile) async throws(StoreError) {
        let document = configuration.encodedData()
        let new = Catalog(configuration: configuration)
        try await perform(storingCatalog: ParsedCatalog(document: document, configuration: configuration)) { operation in
            try operation.acceptPriceIncreases(to: new)
            try operation.storage.write(.saveCatalog(document))
        }
    }

    /// Tells every subscriber who renews into a plan that `catalog` prices higher than the store does now that the
    /// price goes up, as the App Store does for an increase that needs no consent: the subscription's
    /// `priceIncreaseStatus` becomes 1, its renewal info's `renewalPrice` follows the new price, and its app server
    /// gets `PRICE_INCREASE`/`ACCEPTED`. Call it before selling `catalog` (``setCatalog(_:)`` does).
    ///
    /// - Throws: ``StoreError/storageFailure`` when the storage cannot be read or written; nothing changes then.
    public func announcePriceIncreases(to catalog: Catalog) async throws(StoreError) {
        try await perform { try $0.acceptPriceIncreases(to: catalog) }
    }

    /// What the tenant sells now, read anew: a catalog another engine on the same storage may have stored since this
    /// one's last operation. ``catalog`` holds it afterwards. One small read when the catalog did not change.
    ///
    /// - Throws: ``StoreError/storageFailure`` when the storage or the stored catalog cannot be read.
    public func currentCatalog() async throws(StoreError) -> Catalog {
        let known = KnownCatalog(version: catalogVersion, catalog: catalog, offerKeys: promotionalOfferKeys)
        let latest = try await storageCall { [tenantID] storage in
            try await storage.read(tenant: tenantID) { reader in try Self.catalog(known: known, tenant: tenantID, in: reader) }
        }
        adoptCatalog(latest)
        return catalog
    }

    /// The known catalog when `found` finds what a request names in it, else the tenant's latest (``currentCatalog()``),
    /// which another engine on the storage may have given something the known one lacks.
    func catalog(where found: (Catalog) -> Bool) async throws(StoreError) -> Catalog {
        if found(catalog) { return catalog }
        return try await currentCatalog()
    }

    /// The tenant's stored catalog, `nil` when it was never given one: whether it sells a catalog of its own.
    ///
    /// - Throws: ``StoreError/storageFailure`` when the storage cannot be read.
    public func storedCatalog() async throws(StoreError) -> StoredCatalog? {
        let stored = try await storageCall { [tenantID] storage in try await storage.read(tenant: tenantID) { try $0.storedCatalog() } }
        return stored.document == nil ? nil : stored
    }

    /// The catalog an operation sells: `known` while the stored version is still its version, else the stored one,
    /// with the known offer keys and the stored configuration's (which replace known keys of the same identifier).
    static func catalog(
        known: KnownCatalog, tenant: String, in reader: any StorageReader, parsed: ParsedCatalog? = nil
    ) throws -> KnownCatalog {
        let version = try reader.catalogVersion()
        guard version != known.version else { return known }
        let stored = try reader.storedCatalog()
        guard let document = stored.document else { return known }
        let configuration: StoreKitConfigurationFile
        do {
            if let parsed, parsed.document == document {
                configuration = parsed.configuration
            } else {
                configuration = try StoreKitConfigurationFile(data: document, sourceName: "the stored catalog of tenant \(tenant)")
            }
        } catch {
            throw StoreError.storageFailure(
                "The stored catalog of tenant \(tenant) is not a usable .storekit file (\(error.description)). Store a valid one: PUT /control/tenants/\(tenant)/catalog."
            )
        }
        let keys = PromotionalOfferKey.keys(in: configuration)
        let offerKeys = known.offerKeys.filter { old in !keys.contains { $0.keyID == old.keyID } } + keys
        return KnownCatalog(version: stored.version, catalog: Catalog(configuration: configuration), offerKeys: offerKeys)
    }

    /// Takes a catalog read or written by a committed operation, unless a later version is already known (operations
    /// overlap on the actor).
    func adoptCatalog(_ latest: KnownCatalog) {
        guard latest.version > catalogVersion else { return }
        catalogVersion = latest.version
        replaceCatalog(latest.catalog)
        for key in latest.offerKeys { addPromotionalOfferKey(key) }
    }
}

/// A catalog an operation stores, with the document it stores: what reading the document back would give.
struct ParsedCatalog: Sendable {
    let document: Data
    let configuration: StoreKitConfigurationFile
}
