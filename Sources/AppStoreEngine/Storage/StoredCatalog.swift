public import Foundation

/// A tenant's catalog as storage keeps it: the `.storekit` document it was last given through an engine
/// (``StorageChange/saveCatalog(_:)``), and a version that grows with every change, so an engine sees in one small read
/// whether another one — in another process, on another server — changed what the tenant sells.
///
/// A tenant given no catalog of its own has none stored (version 0) and sells what it was opened with. A catalog is
/// configuration, not store state: erasing, resetting or restoring a tenant leaves it, and snapshots do not carry it.
public struct StoredCatalog: Sendable, Hashable {
    /// One more with each ``StorageChange/saveCatalog(_:)`` of the tenant; 0 when it was never given a catalog.
    public var version: Int
    /// The JSON of the `.storekit` file the tenant sells; `nil` when it was never given one.
    public var document: Data?

    /// Describes a stored catalog; the defaults describe a tenant never given one.
    public init(version: Int = 0, document: Data? = nil) {
        self.version = version
        self.document = document
    }
}
