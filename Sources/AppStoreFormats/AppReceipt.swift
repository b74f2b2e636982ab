import Crypto
public import Foundation

/// An app receipt's payload (`Bundle.main.appStoreReceiptURL`), with Apple's attribute numbers.
///
/// Build one, set ``sha1Hash`` with ``setDeviceHash(deviceIdentifier:)``, and sign it with
/// ``ReceiptSigner``; or read any receipt with ``init(receiptData:)`` (no verification) or ``ReceiptVerifier``.
/// Encoding follows Apple's production layout: DER, SETs sorted as DER requires, IA5String dates
/// `yyyy-MM-dd'T'HH:mm:ss'Z'`, UTF8String identifiers, one type-17 attribute per purchase.
public struct AppReceipt: Hashable, Sendable {
    /// 0: `Production`, `ProductionSandbox` (Apple's sandbox), `Xcode`, …
    public var receiptType: String
    /// 1: the app's Apple ID (0 outside production).
    public var appItemID: Int64
    /// 2: the bundle identifier.
    public var bundleID: String
    /// 3: the app version (CFBundleVersion).
    public var appVersion: String
    /// 4: an opaque value that makes the hash unique per receipt (16 bytes in Apple's receipts).
    public var opaqueValue: Data
    /// 5: SHA-1 of device identifier ‖ opaque value ‖ bundle-ID attribute contents.
    public var sha1Hash: Data
    /// 12: when the receipt was created.
    public var creationDate: Date?
    /// 18: when the customer first got the app.
    public var originalPurchaseDate: Date?
    /// 19: the app version the customer first got ("1.0" in the sandbox).
    public var originalAppVersion: String?
    /// 21: when the receipt expires (volume purchase receipts; Xcode writes 4001-01-01).
    public var expirationDate: Date?
    /// ``issuingStoreType``: the OpenStoreKit store (tenant) that issued the receipt, so a receipt posted to Apple's
    /// bare `verifyReceipt` URL reaches the store that issued it. Apple's receipts never carry the type, and receipt
    /// parsers skip types they do not know, as they skip Apple's undocumented ones.
    public var issuingStore: String?
    /// 17: one entry per in-app purchase. Encoding sorts the SET as DER requires, so decoding returns purchases
    /// in encoded order rather than the order given here.
    public var inAppPurchases: [InAppPurchaseReceipt]
    /// Attributes with other type numbers (Apple's undocumented ones), kept as they are. Do not repeat a
    /// modelled type here.
    public var additionalAttributes: [ReceiptAttribute]

    /// The attribute type of ``issuingStore``: 0x4F534B, "OSK", far above Apple's numbers.
    public static let issuingStoreType = 0x4F534B

    /// Creates a receipt payload.
    public init(
        receiptType: String = "ProductionSandbox",
        appItemID: Int64 = 0,
        bundleID: String,
        appVersion: String,
        opaqueValue: Data,
        sha1Hash: Data = Data(count: 20),
        creationDate: Date?,
        originalPurchaseDate: Date? = nil,
        originalAppVersion: String? = nil,
        expirationDate: Date? = nil,
        issuingStore: String? = nil,
        inAppPurchases: [InAppPurchaseReceipt] = [],
        additionalAttributes: [ReceiptAttribute] = []
    ) {
        self.receiptType = receiptType
        self.appItemID = appItemID
        self.bundleID = bundleID
        self.appVersion = appVersion
        self.opaqueValue = opaqueValue
        self.sha1Hash = sha1Hash
        self.creationDate = creationDate
        self.originalPurchaseDate = originalPurchaseDate
        self.originalAppVersion = originalAppVersion
        self.expirationDate = expirationDate
        self.issuingStore = issuingStore
        self.inAppPurchases = inAppPurchases
        self.additionalAttributes = additionalAttributes
    }

    /// The receipt hash (attribute 5): `SHA1(deviceIdentifier ‖ opaque ‖ bundle-ID TLV)`, where the bundle-ID
    /// TLV is the whole UTF8String encoding (`0c len bytes`), as Apple computes it.
    ///
    /// - Parameters:
    ///   - deviceIdentifier: The raw identifier: the 16 bytes of `identifierForVendor` on iOS, or the 6-byte MAC
    ///     address on macOS.
    ///   - opaque: The receipt's opaque value (attribute 4).
    ///   - bundleID: The app's bundle identifier (attribute 2).
    public static func deviceHash(deviceIdentifier: Data, opaque: Data, bundleID: String) -> Data {
        var hasher = Insecure.SHA1()
        hasher.update(data: deviceIdentifier)
        hasher.update(data: opaque)
        hasher.update(data: ReceiptDER.utf8String(bundleID))
        return Data(hasher.finalize())
    }

    /// The receipt hash for an iOS device's `identifierForVendor`.
    public static func deviceHash(deviceIdentifier: UUID, opaque: Data, bundleID: String) -> Data {
        deviceHash(deviceIdentifier: deviceIdentifier.data, opaque: opaque, bundleID: bundleID)
    }

    /// Sets ``sha1Hash`` for the given device from ``opaqueValue`` and ``bundleID``.
    public mutating func setDeviceHash(deviceIdentifier: UUID) {
        sha1Hash = Self.deviceHash(deviceIdentifier: deviceIdentifier, opaque: opaqueValue, bundleID: bundleID)
    }

    /// The attributes this receipt encodes to, in type order (before DER sorting).
    public var attributes: [ReceiptAttribute] {
        var attributes: [ReceiptAttribute] = [
            .utf8String(0, receiptType),
            .integer(1, appItemID),
            .utf8String(2, bundleID),
            .utf8String(3, appVersion),
            ReceiptAttribute(type: 4, version: 2, value: opaqueValue),
            ReceiptAttribute(type: 5, value: sha1Hash),
            .date(12, creationDate),
        ]
        for purchase in inAppPurchases {
            attributes.append(ReceiptAttribute(type: 17, value: purchase.derEncoded))
        }
        if let originalPurchaseDate { attributes.append(.date(18, originalPurchaseDate)) }
        if let originalAppVersion { attributes.append(.utf8String(19, originalAppVersion)) }
        if let expirationDate { attributes.append(.date(21, expirationDate)) }
        if let issuingStore { attributes.append(.utf8String(Self.issuingStoreType, issuingStore)) }
        return attributes + additionalAttributes
    }

    /// The DER payload SET: the bytes ``ReceiptSigner`` wraps in PKCS#7.
    public var derEncoded: Data {
        ReceiptDER.attributeSet(attributes)
    }

    /// Decodes a payload SET (DER or BER), as found inside the PKCS#7 envelope.
    public init(payload: Data) throws {
        self.init(attributes: try ReceiptPayloadReader.attributes(in: payload))
    }

    /// Builds a receipt from decoded attributes; in-app SETs that do not decode become additional attributes.
    init(attributes: [ReceiptAttribute]) {
        self.init(bundleID: "", appVersion: "", opaqueValue: Data(), sha1Hash: Data(), creationDate: nil)
        receiptType = ""
        for attribute in attributes {
            let value = ReceiptPayloadReader.Value(attribute.value)
            switch attribute.type {
            case 0: receiptType = value.string ?? ""
            case 1: appItemID = value.integer ?? 0
            case 2: bundleID = value.string ?? ""
            case 3: appVersion = value.string ?? ""
            case 4: opaqueValue = attribute.value
            case 5: sha1Hash = attribute.value
            case 12: creationDate = value.date
            case 17:
                if let purchase = try? InAppPurchaseReceipt(derEncoded: attribute.value) {
                    inAppPurchases.append(purchase)
                } else {
                    additionalAttributes.append(attribute)
                }
            case 18: originalPurchaseDate = value.date
            case 19: originalAppVersion = value.string
            case 21: expirationDate = value.date
            case Self.issuingStoreType: issuingStore = value.string
            default: additionalAttributes.append(attribute)
            }
        }
    }

    /// Decodes a whole receipt file (PKCS#7 in DER or BER, or base64 of either) without verifying it.
    public init(receiptData: Data) throws {
        try self.init(payload: try ReceiptEnvelope(bytes: ReceiptEnvelope.bytes(of: receiptData)).payload)
    }
}

extension UUID {
    /// The 16 raw bytes.
    var data: Data {
        withUnsafeBytes(of: uuid) { Data($0) }
    }
}
