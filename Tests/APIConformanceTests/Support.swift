// The helpers the conformance checks use. Each one compiles only when its argument has the shape Apple gives the
// declaration, so a drift in OpenStoreKit fails the build at the line that names the declaration.
import Foundation

/// Compiles only when `T` is `Sendable`, as Apple declares it (`NS_SWIFT_SENDABLE` or a Swift `Sendable` type).
func requireSendable<T: Sendable>(_: T.Type) {}

/// Compiles only when `T` is a class that inherits from `NSObject`, as every Objective-C StoreKit class does.
func requireNSObjectSubclass<T: NSObject>(_: T.Type) {}

/// Compiles only when `T` is `Hashable`.
func requireHashable<T: Hashable>(_: T.Type) {}

/// Compiles only when `T` is `Equatable`.
func requireEquatable<T: Equatable>(_: T.Type) {}

/// Compiles only when `T` is an `Error` that Foundation bridges to `NSError` through its domain, code and user info.
func requireCustomNSError<T: CustomNSError>(_: T.Type) {}

/// Compiles only when `T` is a bridged error that stores an `NSError`, as Apple's `SKError` is.
func requireBridgedStoredNSError<T: _BridgedStoredNSError>(_: T.Type) {}

/// Compiles only when `T` is raw-representable with exactly the raw type `raw` (a metatype does not convert:
/// `UInt.Type` is not `Int.Type`).
func requireRawValue<T: RawRepresentable>(_: T.Type, _ raw: T.RawValue.Type) {}

/// Compiles only when `T` is `Identifiable` with exactly the identifier type `id`.
func requireIdentifiable<T: Identifiable>(_: T.Type, id: T.ID.Type) {}

/// Compiles only when `T` is an `AsyncSequence` of exactly `element`s.
func requireAsyncSequence<T: AsyncSequence>(_: T.Type, element: T.Element.Type) {}

/// Compiles only when `T` is an `Error` with localized descriptions.
func requireLocalizedError<T: LocalizedError>(_: T.Type) {}

/// Compiles only when `T` describes itself for debugging.
func requireCustomDebugStringConvertible<T: CustomDebugStringConvertible>(_: T.Type) {}
