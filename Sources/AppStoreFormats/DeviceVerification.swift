import Crypto
public import Foundation

/// The device-verification value StoreKit puts in the signed data it hands to an app (`deviceVerification`
/// and `deviceVerificationNonce` of a transaction, renewal info or app transaction).
///
/// The value is SHA-384 of the nonce's lowercase UUID string followed by the device's
/// `AppStore.deviceVerificationID` as a lowercase UUID string. An app recomputes it to check that signed data was
/// issued for its device.
public enum DeviceVerification {
    /// The SHA-384 digest that ties signed data carrying `nonce` to the device `deviceVerificationID`.
    public static func value(nonce: UUID, deviceVerificationID: UUID) -> Data {
        let text = nonce.uuidString.lowercased() + deviceVerificationID.uuidString.lowercased()
        return Data(SHA384.hash(data: Data(text.utf8)))
    }
}
