/// The OpenAPI 3.1 document of the control API, served at `GET /control/openapi.json`.
///
/// Keep it in step with the routes: `ControlAPIDocumentTests` checks that every `/control/` route the router
/// registers is in it, and the schemathesis test sends it generated requests, none of which may get a 5xx.
enum ControlAPIDocument {
    /// The document's JSON text.
    static let json = #"""
{
  "openapi": "3.1.0",
  "info": {
    "title": "OpenStoreKit control API",
    "version": "1",
    "description": "Drive a running `storekit serve` store from any language: buy, act on transactions and subscriptions, move the clock, flip test switches, manage tenants and keys. Every answer is JSON; a request the store refuses answers 400 (404 for an unknown product, transaction or notification, 409 for a tenant name or key that is taken, 422 for an Idempotency-Key reused on another request) with {\"error\": \"…\"} saying what to send instead; 500 when the store's storage or signing fails, with nothing changed. The device protocol and the transaction manager's page answer with the same statuses. Every store route also answers under /t/{tenant}/ for an isolated store of that name, created on first use. The server listens on 127.0.0.1 only and the control API has no authentication."
  },
  "servers": [
    {
      "url": "/",
      "description": "The server's own store."
    },
    {
      "url": "/t/{tenant}",
      "description": "A tenant's store (store routes only).",
      "variables": {
        "tenant": {
          "default": "test"
        }
      }
    }
  ],
  "tags": [
    {
      "name": "Store"
    },
    {
      "name": "Transactions"
    },
    {
      "name": "Subscriptions"
    },
    {
      "name": "Notifications"
    },
    {
      "name": "Retention messaging"
    },
    {
      "name": "Tenants"
    },
    {
      "name": "Keys"
    },
    {
      "name": "Document"
    }
  ],
  "paths": {
    "/control/clock": {
      "get": {
        "operationId": "getClock",
        "summary": "Where the store's clock stands.",
        "tags": [
          "Store"
        ],
        "responses": {
          "200": {
            "description": "The clock.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Clock"
                }
              }
            }
          }
        }
      }
    },
    "/control/clock/advance": {
      "post": {
        "operationId": "advanceClock",
        "summary": "Moves the clock forward by a duration or to a date.",
        "tags": [
          "Store"
        ],
        "responses": {
          "200": {
            "description": "The clock after the move, with the notifications the renewals, expiries and retries on the way wrote.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Clock"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/Error"
          }
        },
        "description": "Renewals, expiries and billing retries that fall due on the way happen in date order, before the answer. The clock only moves forward, up to 2099-12-31T23:59:59Z (where the store's certificates end), and one move crosses at most 5000 periods of the catalog's shortest subscription at the current time rate; a longer move is a 400 saying to move in steps.",
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/ClockAdvanceRequest"
              }
            }
          }
        }
      }
    },
    "/control/clock/rate": {
      "put": {
        "operationId": "setTimeRate",
        "summary": "Sets Apple's time rate (SKTestSession.TimeRate), or back to the configuration's with null.",
        "tags": [
          "Store"
        ],
        "responses": {
          "200": {
            "description": "The clock with its new rate.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Clock"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/Error"
          }
        },
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/TimeRateRequest"
              }
            }
          }
        }
      }
    },
    "/control/events": {
      "get": {
        "operationId": "streamEvents",
        "summary": "Every change of the store as it happens, as server-sent events.",
        "tags": [
          "Store"
        ],
        "responses": {
          "200": {
            "description": "Events named transactions, subscriptions, notifications, clock, settings, accounts or intents; the stream stays open.",
            "content": {
              "text/event-stream": {
                "schema": {
                  "type": "string"
                }
              }
            }
          }
        }
      }
    },
    "/control/families/members/{account}": {
      "delete": {
        "operationId": "leaveFamily",
        "summary": "Takes an account out of its family; what was shared with it is revoked.",
        "tags": [
          "Store"
        ],
        "responses": {
          "200": {
            "description": "The transactions revoked.",
            "content": {
              "application/json": {
                "schema": {
                  "type": "object",
                  "properties": {
                    "revoked": {
                      "type": "array",
                      "items": {
                        "type": "string"
                      }
                    }
                  }
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/Error"
          }
        },
        "parameters": [
          {
            "name": "account",
            "in": "path",
            "required": true,
            "description": "The account.",
            "schema": {
              "type": "string"
            }
          }
        ]
      }
    },
    "/control/families/{family}/members": {
      "post": {
        "operationId": "joinFamily",
        "summary": "Adds an account to a family; the family's shareable purchases are shared at once.",
        "tags": [
          "Store"
        ],
        "responses": {
          "200": {
            "description": "The transactions shared with the new member.",
            "content": {
              "application/json": {
                "schema": {
                  "type": "object",
                  "properties": {
                    "shared": {
                      "type": "array",
                      "items": {
                        "type": "string"
                      }
                    }
                  }
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/Error"
          }
        },
        "parameters": [
          {
            "name": "family",
            "in": "path",
            "required": true,
            "description": "The family's name.",
            "schema": {
              "type": "string"
            }
          }
        ],
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/FamilyMemberRequest"
              }
            }
          }
        }
      }
    },
    "/control/keys": {
      "get": {
        "operationId": "listKeys",
        "summary": "The In-App Purchase keys App Store Server API tokens may be signed with.",
        "tags": [
          "Keys"
        ],
        "responses": {
          "200": {
            "description": "The keys.",
            "content": {
              "application/json": {
                "schema": {
                  "type": "object",
                  "properties": {
                    "keys": {
                      "type": "array",
                      "items": {
                        "$ref": "#/components/schemas/Key"
                      }
                    }
                  }
                }
              }
            }
          }
        },
        "description": "The server's keys on its own paths; a tenant's own keys under /t/{tenant}/."
      },
      "post": {
        "operationId": "createKey",
        "summary": "Makes a key; the answer holds its private half, which the store does not keep.",
        "tags": [
          "Keys"
        ],
        "responses": {
          "201": {
            "description": "The key, with privateKey.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Key"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/Error"
          }
        },
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/KeyRequest"
              }
            }
          }
        }
      }
    },
    "/control/keys/{keyId}/revoke": {
      "post": {
        "operationId": "revokeKey",
        "summary": "Revokes a key: its tokens get 401 at once.",
        "tags": [
          "Keys"
        ],
        "responses": {
          "200": {
            "description": "The key.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Key"
                }
              }
            }
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          }
        },
        "parameters": [
          {
            "name": "keyId",
            "in": "path",
            "required": true,
            "description": "The key's identifier, the tokens' kid.",
            "schema": {
              "type": "string"
            }
          }
        ]
      }
    },
    "/control/notification-url": {
      "get": {
        "operationId": "getNotificationURL",
        "summary": "Where the store sends App Store Server Notifications.",
        "tags": [
          "Notifications"
        ],
        "responses": {
          "200": {
            "description": "The destinations.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/NotificationDestinations"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/Error"
          }
        }
      },
      "put": {
        "operationId": "setNotificationURL",
        "summary": "Sets where every app's (or one app's, with bundleId) notifications go; a null url stops them.",
        "tags": [
          "Notifications"
        ],
        "responses": {
          "200": {
            "description": "The destinations after the change.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/NotificationDestinations"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/Error"
          }
        },
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/NotificationURLRequest"
              }
            }
          }
        }
      }
    },
    "/control/notifications": {
      "get": {
        "operationId": "listNotifications",
        "summary": "The notification outbox, oldest first, with each notification's delivery state.",
        "tags": [
          "Notifications"
        ],
        "responses": {
          "200": {
            "description": "The notifications.",
            "content": {
              "application/json": {
                "schema": {
                  "type": "array",
                  "items": {
                    "$ref": "#/components/schemas/Notification"
                  }
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/Error"
          }
        },
        "parameters": [
          {
            "name": "bundleId",
            "in": "query",
            "required": false,
            "description": "Only this app's.",
            "schema": {
              "type": "string"
            }
          },
          {
            "name": "since",
            "in": "query",
            "required": false,
            "description": "Only those written at or after this ISO 8601 date.",
            "schema": {
              "type": "string",
              "format": "date-time"
            }
          }
        ]
      }
    },
    "/control/notifications/{uuid}": {
      "get": {
        "operationId": "getNotification",
        "summary": "One notification, with its signedPayload.",
        "tags": [
          "Notifications"
        ],
        "responses": {
          "200": {
            "description": "The notification.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Notification"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/Error"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          }
        },
        "parameters": [
          {
            "name": "uuid",
            "in": "path",
            "required": true,
            "description": "A notification's notificationUUID.",
            "schema": {
              "type": "string",
              "format": "uuid"
            }
          }
        ]
      }
    },
    "/control/notifications/{uuid}/redeliver": {
      "post": {
        "operationId": "redeliverNotification",
        "summary": "Sends a notification again: pending from now with Apple's whole retry schedule, attempts kept.",
        "tags": [
          "Notifications"
        ],
        "responses": {
          "200": {
            "description": "The notification.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Notification"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/Error"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          }
        },
        "parameters": [
          {
            "name": "uuid",
            "in": "path",
            "required": true,
            "description": "A notification's notificationUUID.",
            "schema": {
              "type": "string",
              "format": "uuid"
            }
          }
        ]
      }
    },
    "/control/offer-codes": {
      "post": {
        "operationId": "redeemOfferCode",
        "summary": "Redeems an offer code outside any app, as on the App Store.",
        "tags": [
          "Store"
        ],
        "responses": {
          "200": {
            "description": "The transaction the redemption made.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Transaction"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/Error"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          }
        },
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/OfferCodeRequest"
              }
            }
          }
        }
      }
    },
    "/control/openapi.json": {
      "get": {
        "operationId": "getOpenAPIDocument",
        "summary": "This document.",
        "tags": [
          "Document"
        ],
        "responses": {
          "200": {
            "description": "The OpenAPI 3.1 document of the control API.",
            "content": {
              "application/json": {
                "schema": {
                  "type": "object"
                }
              }
            }
          }
        }
      }
    },
    "/control/purchase-intents": {
      "post": {
        "operationId": "addPurchaseIntent",
        "summary": "A promoted purchase, as a customer tapping the product on the App Store.",
        "tags": [
          "Store"
        ],
        "responses": {
          "200": {
            "description": "The purchase intent waiting for the app.",
            "content": {
              "application/json": {
                "schema": {
                  "type": "object"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/Error"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          }
        },
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/PurchaseIntentRequest"
              }
            }
          }
        }
      }
    },
    "/control/purchases": {
      "post": {
        "operationId": "purchase",
        "summary": "Buys a product for an account, without an app.",
        "tags": [
          "Transactions"
        ],
        "parameters": [
          {
            "name": "Idempotency-Key",
            "in": "header",
            "required": false,
            "description": "Names this purchase: a request repeating the key for the account in the app answers the purchase it made, buying nothing again.",
            "schema": {
              "type": "string"
            }
          }
        ],
        "responses": {
          "200": {
            "description": "The transaction.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Transaction"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/Error"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          },
          "422": {
            "$ref": "#/components/responses/Error"
          }
        },
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/PurchaseRequest"
              }
            }
          }
        }
      }
    },
    "/control/retention/{bundleId}/images/{identifier}/state": {
      "put": {
        "operationId": "setImageReviewState",
        "summary": "App Review's verdict on a Retention Messaging image, which the store otherwise gives at once (APPROVED).",
        "tags": [
          "Retention messaging"
        ],
        "responses": {
          "200": {
            "description": "The new state.",
            "content": {
              "application/json": {
                "schema": {
                  "type": "object",
                  "properties": {
                    "state": {
                      "type": "string"
                    }
                  }
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/Error"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          }
        },
        "parameters": [
          {
            "name": "bundleId",
            "in": "path",
            "required": true,
            "description": "The app.",
            "schema": {
              "type": "string"
            }
          },
          {
            "name": "identifier",
            "in": "path",
            "required": true,
            "description": "The image's identifier, as uploaded.",
            "schema": {
              "type": "string",
              "format": "uuid"
            }
          }
        ],
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/ReviewStateRequest"
              }
            }
          }
        }
      }
    },
    "/control/retention/{bundleId}/messages/{identifier}/state": {
      "put": {
        "operationId": "setMessageReviewState",
        "summary": "App Review's verdict on a Retention Messaging message, which the store otherwise gives at once (APPROVED).",
        "tags": [
          "Retention messaging"
        ],
        "responses": {
          "200": {
            "description": "The new state.",
            "content": {
              "application/json": {
                "schema": {
                  "type": "object",
                  "properties": {
                    "state": {
                      "type": "string"
                    }
                  }
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/Error"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          }
        },
        "parameters": [
          {
            "name": "bundleId",
            "in": "path",
            "required": true,
            "description": "The app.",
            "schema": {
              "type": "string"
            }
          },
          {
            "name": "identifier",
            "in": "path",
            "required": true,
            "description": "The message's identifier, as uploaded.",
            "schema": {
              "type": "string",
              "format": "uuid"
            }
          }
        ],
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/ReviewStateRequest"
              }
            }
          }
        }
      }
    },
    "/control/settings": {
      "get": {
        "operationId": "getSettings",
        "summary": "The test switches of the running store.",
        "tags": [
          "Store"
        ],
        "responses": {
          "200": {
            "description": "The settings.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Settings"
                }
              }
            }
          }
        }
      },
      "put": {
        "operationId": "updateSettings",
        "summary": "Changes test switches; fields left out stay as they are.",
        "tags": [
          "Store"
        ],
        "responses": {
          "200": {
            "description": "The settings after the change.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Settings"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/Error"
          }
        },
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/SettingsRequest"
              }
            }
          }
        }
      }
    },
    "/control/subscriptions": {
      "get": {
        "operationId": "listSubscriptions",
        "summary": "An account's subscriptions with their renewal state.",
        "tags": [
          "Subscriptions"
        ],
        "responses": {
          "200": {
            "description": "The subscriptions.",
            "content": {
              "application/json": {
                "schema": {
                  "type": "array",
                  "items": {
                    "$ref": "#/components/schemas/Subscription"
                  }
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/Error"
          }
        },
        "parameters": [
          {
            "name": "account",
            "in": "query",
            "required": false,
            "description": "The account; the default account without it.",
            "schema": {
              "type": "string"
            }
          },
          {
            "name": "bundleId",
            "in": "query",
            "required": false,
            "description": "Only this app's.",
            "schema": {
              "type": "string"
            }
          }
        ]
      }
    },
    "/control/subscriptions/{id}/auto-renew": {
      "post": {
        "operationId": "subscriptionAutoRenew",
        "summary": "Turns a subscription's auto-renew on or off.",
        "tags": [
          "Subscriptions"
        ],
        "responses": {
          "200": {
            "description": "The subscription after the action.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Subscription"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/Error"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          }
        },
        "parameters": [
          {
            "name": "id",
            "in": "path",
            "required": true,
            "description": "Any transaction of the subscription.",
            "schema": {
              "type": "string",
              "pattern": "^[0-9]+$",
              "example": "2000000000000002"
            }
          }
        ],
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/AutoRenewRequest"
              }
            }
          }
        }
      }
    },
    "/control/subscriptions/{id}/expire": {
      "post": {
        "operationId": "subscriptionExpire",
        "summary": "Expires a subscription now.",
        "tags": [
          "Subscriptions"
        ],
        "responses": {
          "200": {
            "description": "The subscription after the action.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Subscription"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/Error"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          }
        },
        "parameters": [
          {
            "name": "id",
            "in": "path",
            "required": true,
            "description": "Any transaction of the subscription.",
            "schema": {
              "type": "string",
              "pattern": "^[0-9]+$",
              "example": "2000000000000002"
            }
          }
        ]
      }
    },
    "/control/subscriptions/{id}/price-increase": {
      "post": {
        "operationId": "subscriptionPriceIncrease",
        "summary": "Asks the customer to consent to a price increase.",
        "tags": [
          "Subscriptions"
        ],
        "responses": {
          "200": {
            "description": "The subscription after the action.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Subscription"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/Error"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          }
        },
        "parameters": [
          {
            "name": "id",
            "in": "path",
            "required": true,
            "description": "Any transaction of the subscription.",
            "schema": {
              "type": "string",
              "pattern": "^[0-9]+$",
              "example": "2000000000000002"
            }
          }
        ]
      }
    },
    "/control/subscriptions/{id}/price-increase/answer": {
      "post": {
        "operationId": "subscriptionPriceIncreaseAnswer",
        "summary": "The customer's answer to a price increase.",
        "tags": [
          "Subscriptions"
        ],
        "responses": {
          "200": {
            "description": "The subscription after the action.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Subscription"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/Error"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          }
        },
        "parameters": [
          {
            "name": "id",
            "in": "path",
            "required": true,
            "description": "Any transaction of the subscription.",
            "schema": {
              "type": "string",
              "pattern": "^[0-9]+$",
              "example": "2000000000000002"
            }
          }
        ],
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/PriceConsentRequest"
              }
            }
          }
        }
      }
    },
    "/control/subscriptions/{id}/renew": {
      "post": {
        "operationId": "subscriptionRenew",
        "summary": "Renews a subscription now.",
        "tags": [
          "Subscriptions"
        ],
        "responses": {
          "200": {
            "description": "The subscription after the action.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Subscription"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/Error"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          }
        },
        "parameters": [
          {
            "name": "id",
            "in": "path",
            "required": true,
            "description": "Any transaction of the subscription.",
            "schema": {
              "type": "string",
              "pattern": "^[0-9]+$",
              "example": "2000000000000002"
            }
          }
        ]
      }
    },
    "/control/tenants": {
      "get": {
        "operationId": "listTenants",
        "summary": "The server's tenants.",
        "tags": [
          "Tenants"
        ],
        "responses": {
          "200": {
            "description": "The tenants.",
            "content": {
              "application/json": {
                "schema": {
                  "type": "object",
                  "properties": {
                    "tenants": {
                      "type": "array",
                      "items": {
                        "type": "object"
                      }
                    }
                  }
                }
              }
            }
          }
        },
        "description": "Server-wide: only on the server's own paths, never under /t/{tenant}/."
      },
      "post": {
        "operationId": "createTenant",
        "summary": "Creates a tenant, selling the server's catalog or a configuration of its own.",
        "tags": [
          "Tenants"
        ],
        "responses": {
          "201": {
            "description": "The tenant.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Tenant"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/Error"
          },
          "409": {
            "description": "The name is taken.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        },
        "description": "Server-wide: only on the server's own paths, never under /t/{tenant}/.",
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/TenantRequest"
              }
            }
          }
        }
      }
    },
    "/control/tenants/{name}/catalog": {
      "put": {
        "operationId": "replaceTenantCatalog",
        "summary": "Replaces what a tenant sells with a .storekit file.",
        "tags": [
          "Tenants"
        ],
        "responses": {
          "200": {
            "description": "The tenant.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Tenant"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/Error"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          }
        },
        "description": "Server-wide: only on the server's own paths, never under /t/{tenant}/.",
        "parameters": [
          {
            "name": "name",
            "in": "path",
            "required": true,
            "description": "A tenant name: 1 to 64 letters, digits, '.', '_' or '-'.",
            "schema": {
              "type": "string",
              "example": "checkout-42"
            }
          }
        ],
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "type": "object",
                "description": "The JSON of a .storekit file."
              }
            }
          }
        }
      }
    },
    "/control/tenants/{name}/export": {
      "get": {
        "operationId": "exportTenant",
        "summary": "Everything a tenant holds, as one JSON document (TenantSnapshot).",
        "tags": [
          "Tenants"
        ],
        "responses": {
          "200": {
            "description": "The export.",
            "content": {
              "application/json": {
                "schema": {
                  "type": "object"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/Error"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          }
        },
        "description": "Server-wide: only on the server's own paths, never under /t/{tenant}/.",
        "parameters": [
          {
            "name": "name",
            "in": "path",
            "required": true,
            "description": "A tenant name: 1 to 64 letters, digits, '.', '_' or '-'.",
            "schema": {
              "type": "string",
              "example": "checkout-42"
            }
          }
        ]
      }
    },
    "/control/tenants/{name}/import": {
      "put": {
        "operationId": "importTenant",
        "summary": "Replaces everything a tenant holds with an export (created on first use).",
        "tags": [
          "Tenants"
        ],
        "responses": {
          "200": {
            "description": "What was imported.",
            "content": {
              "application/json": {
                "schema": {
                  "type": "object",
                  "properties": {
                    "name": {
                      "type": "string"
                    },
                    "transactions": {
                      "type": "string"
                    }
                  }
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/Error"
          }
        },
        "description": "Server-wide: only on the server's own paths, never under /t/{tenant}/.",
        "parameters": [
          {
            "name": "name",
            "in": "path",
            "required": true,
            "description": "A tenant name: 1 to 64 letters, digits, '.', '_' or '-'.",
            "schema": {
              "type": "string",
              "example": "checkout-42"
            }
          }
        ],
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "type": "object",
                "description": "A document from GET /control/tenants/{name}/export."
              }
            }
          }
        }
      }
    },
    "/control/tenants/{name}/reset": {
      "post": {
        "operationId": "resetTenant",
        "summary": "Resets a tenant to new: accounts, purchases, subscriptions, notifications, clock.",
        "tags": [
          "Tenants"
        ],
        "responses": {
          "200": {
            "description": "The tenant.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Tenant"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/Error"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          }
        },
        "description": "Server-wide: only on the server's own paths, never under /t/{tenant}/.",
        "parameters": [
          {
            "name": "name",
            "in": "path",
            "required": true,
            "description": "A tenant name: 1 to 64 letters, digits, '.', '_' or '-'.",
            "schema": {
              "type": "string",
              "example": "checkout-42"
            }
          }
        ]
      }
    },
    "/control/transactions": {
      "get": {
        "operationId": "listTransactions",
        "summary": "The store's transactions, narrowed by account and app.",
        "tags": [
          "Transactions"
        ],
        "responses": {
          "200": {
            "description": "The transactions, oldest first.",
            "content": {
              "application/json": {
                "schema": {
                  "type": "array",
                  "items": {
                    "$ref": "#/components/schemas/Transaction"
                  }
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/Error"
          }
        },
        "parameters": [
          {
            "name": "account",
            "in": "query",
            "required": false,
            "description": "Only this account's.",
            "schema": {
              "type": "string"
            }
          },
          {
            "name": "bundleId",
            "in": "query",
            "required": false,
            "description": "Only this app's.",
            "schema": {
              "type": "string"
            }
          }
        ]
      },
      "delete": {
        "operationId": "clearTransactions",
        "summary": "Deletes every transaction of the store.",
        "tags": [
          "Transactions"
        ],
        "responses": {
          "200": {
            "description": "What was deleted.",
            "content": {
              "application/json": {
                "schema": {
                  "type": "object",
                  "properties": {
                    "deleted": {
                      "type": "string",
                      "const": "all"
                    }
                  }
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/Error"
          }
        }
      }
    },
    "/control/transactions/{id}": {
      "get": {
        "operationId": "getTransaction",
        "summary": "One transaction, with its signed JWS.",
        "tags": [
          "Transactions"
        ],
        "responses": {
          "200": {
            "description": "The transaction.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Transaction"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/Error"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          }
        },
        "parameters": [
          {
            "name": "id",
            "in": "path",
            "required": true,
            "description": "A transaction identifier such as 2000000000000001.",
            "schema": {
              "type": "string",
              "pattern": "^[0-9]+$",
              "example": "2000000000000001"
            }
          }
        ]
      },
      "delete": {
        "operationId": "deleteTransaction",
        "summary": "Deletes a transaction and what derives from it.",
        "tags": [
          "Transactions"
        ],
        "responses": {
          "200": {
            "description": "The identifiers deleted.",
            "content": {
              "application/json": {
                "schema": {
                  "type": "object",
                  "properties": {
                    "deleted": {
                      "type": "array",
                      "items": {
                        "type": "string"
                      }
                    }
                  }
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/Error"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          }
        },
        "parameters": [
          {
            "name": "id",
            "in": "path",
            "required": true,
            "description": "A transaction identifier such as 2000000000000001.",
            "schema": {
              "type": "string",
              "pattern": "^[0-9]+$",
              "example": "2000000000000001"
            }
          }
        ]
      }
    },
    "/control/transactions/{id}/approve": {
      "post": {
        "operationId": "approveTransaction",
        "summary": "Approves an Ask to Buy request.",
        "tags": [
          "Transactions"
        ],
        "responses": {
          "200": {
            "description": "The transaction after the action.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Transaction"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/Error"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          }
        },
        "parameters": [
          {
            "name": "id",
            "in": "path",
            "required": true,
            "description": "A transaction identifier such as 2000000000000001.",
            "schema": {
              "type": "string",
              "pattern": "^[0-9]+$",
              "example": "2000000000000001"
            }
          }
        ]
      }
    },
    "/control/transactions/{id}/decline": {
      "post": {
        "operationId": "declineTransaction",
        "summary": "Declines an Ask to Buy request.",
        "tags": [
          "Transactions"
        ],
        "responses": {
          "200": {
            "description": "The transaction after the action.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Transaction"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/Error"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          }
        },
        "parameters": [
          {
            "name": "id",
            "in": "path",
            "required": true,
            "description": "A transaction identifier such as 2000000000000001.",
            "schema": {
              "type": "string",
              "pattern": "^[0-9]+$",
              "example": "2000000000000001"
            }
          }
        ]
      }
    },
    "/control/transactions/{id}/refund": {
      "post": {
        "operationId": "refundTransaction",
        "summary": "Refunds a transaction; {\"reason\": \"app-issue\"} gives Apple's revocationReason 1, anything else 0.",
        "tags": [
          "Transactions"
        ],
        "responses": {
          "200": {
            "description": "The transaction after the action.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Transaction"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/Error"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          }
        },
        "parameters": [
          {
            "name": "id",
            "in": "path",
            "required": true,
            "description": "A transaction identifier such as 2000000000000001.",
            "schema": {
              "type": "string",
              "pattern": "^[0-9]+$",
              "example": "2000000000000001"
            }
          }
        ],
        "requestBody": {
          "required": false,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/RefundRequest"
              }
            }
          }
        }
      }
    },
    "/control/transactions/{id}/refund-request": {
      "post": {
        "operationId": "requestRefund",
        "summary": "A customer's refund request, as beginRefundRequest makes it. With the refundRequestsAwaitDecision setting on, the request waits (refundRequest.status pending) and the app's server hears CONSUMPTION_REQUEST with the reason as consumptionRequestReason (consumables, non-renewing and auto-renewable subscriptions); decide it with /refund-request/decision. Off, it is decided now: refunded, or declined (REFUND_DECLINED) with {\"approve\": false}.",
        "tags": [
          "Transactions"
        ],
        "responses": {
          "200": {
            "description": "The transaction after the action.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Transaction"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/Error"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          }
        },
        "parameters": [
          {
            "name": "id",
            "in": "path",
            "required": true,
            "description": "A transaction identifier such as 2000000000000001.",
            "schema": {
              "type": "string",
              "pattern": "^[0-9]+$",
              "example": "2000000000000001"
            }
          }
        ],
        "requestBody": {
          "required": false,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/CustomerRefundRequest"
              }
            }
          }
        }
      }
    },
    "/control/transactions/{id}/refund-request/decision": {
      "post": {
        "operationId": "decideRefundRequest",
        "summary": "Decides a pending refund request: refund in full (REFUND, revocationType REFUND_FULL), prorated (REFUND, REFUND_PRORATED with revocationPercentage in milli-percent) or decline (REFUND_DECLINED). The Send Consumption Information the app's server sent is in refundRequest.consumption.",
        "tags": [
          "Transactions"
        ],
        "responses": {
          "200": {
            "description": "The transaction after the action.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Transaction"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/Error"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          }
        },
        "parameters": [
          {
            "name": "id",
            "in": "path",
            "required": true,
            "description": "A transaction identifier such as 2000000000000001.",
            "schema": {
              "type": "string",
              "pattern": "^[0-9]+$",
              "example": "2000000000000001"
            }
          }
        ],
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/RefundDecision"
              }
            }
          }
        }
      }
    },
    "/control/transactions/{id}/reverse-refund": {
      "post": {
        "operationId": "reverseRefund",
        "summary": "Reverses a refund: the transaction and what the refund revoked with it grant their product again, a subscription the refund ended runs to its period's end, and the app's server hears REFUND_REVERSED.",
        "tags": [
          "Transactions"
        ],
        "responses": {
          "200": {
            "description": "The transaction after the action.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Transaction"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/Error"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          }
        },
        "parameters": [
          {
            "name": "id",
            "in": "path",
            "required": true,
            "description": "A transaction identifier such as 2000000000000001.",
            "schema": {
              "type": "string",
              "pattern": "^[0-9]+$",
              "example": "2000000000000001"
            }
          }
        ]
      }
    },
    "/control/transactions/{id}/resolve": {
      "post": {
        "operationId": "resolveTransaction",
        "summary": "Resolves a subscription's billing issue.",
        "tags": [
          "Transactions"
        ],
        "responses": {
          "200": {
            "description": "The transaction after the action.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Transaction"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/Error"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          }
        },
        "parameters": [
          {
            "name": "id",
            "in": "path",
            "required": true,
            "description": "A transaction identifier such as 2000000000000001.",
            "schema": {
              "type": "string",
              "pattern": "^[0-9]+$",
              "example": "2000000000000001"
            }
          }
        ]
      }
    }
  },
  "components": {
    "schemas": {
      "Error": {
        "type": "object",
        "required": [
          "error"
        ],
        "properties": {
          "error": {
            "type": "string",
            "description": "What is wrong and what to send instead."
          }
        }
      },
      "Clock": {
        "type": "object",
        "required": [
          "now",
          "timeRate"
        ],
        "properties": {
          "now": {
            "type": "string",
            "format": "date-time"
          },
          "timeRate": {
            "type": "integer",
            "description": "Apple's TimeRate raw value; 0 is real time."
          },
          "fired": {
            "type": "array",
            "items": {
              "$ref": "#/components/schemas/Notification"
            },
            "description": "After a move: the notifications written on the way, oldest first."
          }
        }
      },
      "ClockAdvanceRequest": {
        "type": "object",
        "description": "Give by or to.",
        "properties": {
          "by": {
            "type": "string",
            "description": "A duration with units, such as 1mo2d, 3h or 1y.",
            "example": "1mo2d"
          },
          "to": {
            "type": "string",
            "format": "date-time",
            "example": "2027-01-01T00:00:00Z"
          }
        }
      },
      "TimeRateRequest": {
        "type": "object",
        "properties": {
          "timeRate": {
            "type": [
              "string",
              "null"
            ],
            "example": "oneRenewalEveryTenSeconds",
            "description": "An SKTestSession.TimeRate case name; null for the configuration's."
          }
        }
      },
      "PurchaseIntentRequest": {
        "type": "object",
        "required": [
          "productId"
        ],
        "properties": {
          "productId": {
            "type": "string"
          },
          "account": {
            "type": "string"
          },
          "bundleId": {
            "type": "string"
          },
          "winBackOfferId": {
            "type": "string"
          }
        }
      },
      "OfferCodeRequest": {
        "type": "object",
        "required": [
          "code"
        ],
        "properties": {
          "code": {
            "type": "string",
            "description": "The code offer's reference name."
          },
          "account": {
            "type": "string"
          },
          "bundleId": {
            "type": "string"
          }
        }
      },
      "FamilyMemberRequest": {
        "type": "object",
        "required": [
          "account"
        ],
        "properties": {
          "account": {
            "type": "string"
          }
        }
      },
      "Settings": {
        "type": "object",
        "properties": {
          "storefront": {
            "type": "string"
          },
          "locale": {
            "type": "string"
          },
          "environment": {
            "type": "string"
          },
          "askToBuyEnabled": {
            "type": "boolean"
          },
          "interruptedPurchasesEnabled": {
            "type": "boolean"
          },
          "failTransactionsEnabled": {
            "type": "boolean"
          },
          "failureErrorCode": {
            "type": "integer"
          },
          "disableDialogs": {
            "type": "boolean"
          },
          "timeRate": {
            "type": "integer"
          },
          "renewalBillingIssuesEnabled": {
            "type": "boolean"
          },
          "billingGracePeriodEnabled": {
            "type": "boolean"
          },
          "renewalLimit": {
            "type": [
              "integer",
              "null"
            ]
          },
          "refundRequestsAwaitDecision": {
            "type": "boolean"
          }
        }
      },
      "SettingsRequest": {
        "type": "object",
        "description": "The switches to change; others stay.",
        "properties": {
          "storefront": {
            "type": "string",
            "description": "ISO 3166-1 alpha-3, such as USA or FRA.",
            "example": "FRA"
          },
          "locale": {
            "type": "string",
            "example": "en_US"
          },
          "askToBuyEnabled": {
            "type": "boolean"
          },
          "interruptedPurchasesEnabled": {
            "type": "boolean"
          },
          "failTransactionsEnabled": {
            "type": "boolean"
          },
          "failureErrorCode": {
            "type": "integer",
            "description": "The SKError code failed transactions get."
          },
          "renewalBillingIssuesEnabled": {
            "type": "boolean"
          },
          "billingGracePeriodEnabled": {
            "type": "boolean"
          },
          "renewalLimit": {
            "type": "integer",
            "description": "Renewals before a subscription stops; 0 or less for no limit."
          },
          "refundRequestsAwaitDecision": {
            "type": "boolean",
            "description": "Refund requests wait for a decision (/control/transactions/{id}/refund-request/decision) and send CONSUMPTION_REQUEST; off, they are decided at once."
          }
        }
      },
      "PurchaseRequest": {
        "type": "object",
        "required": [
          "productId"
        ],
        "properties": {
          "productId": {
            "type": "string",
            "example": "com.example.demo.premium"
          },
          "account": {
            "type": "string",
            "example": "alice"
          },
          "bundleId": {
            "type": "string",
            "example": "com.example.demo"
          },
          "quantity": {
            "type": "integer",
            "minimum": 1,
            "maximum": 10
          },
          "offerCode": {
            "type": "string",
            "description": "A code offer's reference name, redeemed with the purchase."
          }
        }
      },
      "RefundRequest": {
        "type": "object",
        "properties": {
          "reason": {
            "type": "string",
            "example": "app-issue"
          }
        }
      },
      "CustomerRefundRequest": {
        "type": "object",
        "properties": {
          "reason": {
            "type": "string",
            "description": "Apple's consumptionRequestReason; OTHER by default.",
            "enum": [
              "UNINTENDED_PURCHASE",
              "FULFILLMENT_ISSUE",
              "UNSATISFIED_WITH_PURCHASE",
              "LEGAL",
              "OTHER"
            ]
          },
          "approve": {
            "type": "boolean",
            "description": "When the store decides at once: refund (true, the default) or decline."
          },
          "account": {
            "type": "string",
            "description": "The customer asking; the transaction's account by default."
          }
        }
      },
      "RefundDecision": {
        "type": "object",
        "required": [
          "decision"
        ],
        "properties": {
          "decision": {
            "type": "string",
            "enum": [
              "refund",
              "prorated",
              "decline"
            ]
          },
          "revocationPercentage": {
            "type": "integer",
            "minimum": 1,
            "maximum": 100000,
            "description": "For prorated only: the share refunded in milli-percent (50000 is 50%)."
          },
          "reason": {
            "type": "string",
            "description": "app-issue gives Apple's revocationReason 1, anything else 0.",
            "example": "app-issue"
          }
        }
      },
      "AutoRenewRequest": {
        "type": "object",
        "required": [
          "enabled"
        ],
        "properties": {
          "enabled": {
            "type": "boolean"
          }
        }
      },
      "PriceConsentRequest": {
        "type": "object",
        "required": [
          "consented"
        ],
        "properties": {
          "consented": {
            "type": "boolean"
          }
        }
      },
      "NotificationURLRequest": {
        "type": "object",
        "properties": {
          "url": {
            "type": [
              "string",
              "null"
            ],
            "format": "uri",
            "example": "http://127.0.0.1:9000/notifications"
          },
          "bundleId": {
            "type": "string"
          }
        }
      },
      "NotificationDestinations": {
        "type": "object",
        "properties": {
          "defaultURL": {
            "type": [
              "string",
              "null"
            ]
          },
          "urlsByBundleID": {
            "type": "object",
            "additionalProperties": {
              "type": "string"
            }
          }
        }
      },
      "ReviewStateRequest": {
        "type": "object",
        "required": [
          "state"
        ],
        "properties": {
          "state": {
            "type": "string",
            "enum": [
              "PENDING",
              "APPROVED",
              "REJECTED"
            ]
          }
        }
      },
      "TenantRequest": {
        "type": "object",
        "required": [
          "name"
        ],
        "properties": {
          "name": {
            "type": "string",
            "pattern": "^[A-Za-z0-9._-]{1,64}$",
            "example": "checkout-42"
          },
          "configuration": {
            "type": "object",
            "description": "The JSON of a .storekit file; without it the tenant sells the server's catalog."
          }
        }
      },
      "Tenant": {
        "type": "object",
        "required": [
          "name",
          "path",
          "products"
        ],
        "properties": {
          "name": {
            "type": "string"
          },
          "path": {
            "type": "string",
            "example": "/t/checkout-42/"
          },
          "products": {
            "type": "integer"
          }
        }
      },
      "KeyRequest": {
        "type": "object",
        "required": [
          "issuer"
        ],
        "properties": {
          "issuer": {
            "type": "string",
            "example": "57246542-96fe-1a63-e053-0824d011072a"
          }
        }
      },
      "Key": {
        "type": "object",
        "required": [
          "keyId",
          "issuerId",
          "created",
          "revoked"
        ],
        "properties": {
          "keyId": {
            "type": "string"
          },
          "issuerId": {
            "type": "string"
          },
          "created": {
            "type": "string",
            "format": "date-time"
          },
          "revoked": {
            "type": "boolean"
          },
          "privateKey": {
            "type": "string",
            "description": "The PKCS #8 PEM of a .p8 file; only in the answer that created the key."
          }
        }
      },
      "Transaction": {
        "type": "object",
        "required": [
          "transactionId",
          "originalTransactionId",
          "productId",
          "bundleId",
          "type",
          "account",
          "state"
        ],
        "properties": {
          "transactionId": {
            "type": "string"
          },
          "originalTransactionId": {
            "type": "string"
          },
          "orderId": {
            "type": "string"
          },
          "productId": {
            "type": "string"
          },
          "bundleId": {
            "type": "string"
          },
          "type": {
            "type": "string"
          },
          "account": {
            "type": "string"
          },
          "purchaseDate": {
            "type": "string"
          },
          "originalPurchaseDate": {
            "type": "string"
          },
          "storefront": {
            "type": "string"
          },
          "storefrontId": {
            "type": "string"
          },
          "currency": {
            "type": "string"
          },
          "price": {
            "type": "string"
          },
          "amountCharged": {
            "type": "string"
          },
          "origin": {
            "type": "string"
          },
          "state": {
            "type": "string"
          },
          "signedTransaction": {
            "type": "string"
          },
          "quantity": {
            "type": "integer"
          },
          "expiresDate": {
            "type": "string"
          },
          "revocationDate": {
            "type": "string"
          },
          "revocationReason": {
            "type": "integer"
          },
          "revocationType": {
            "type": "string",
            "description": "REFUND_FULL or REFUND_PRORATED for a decided refund request, FAMILY_REVOKE; absent for a refund that signs as REFUND_FULL."
          },
          "revocationPercentage": {
            "type": "integer",
            "description": "For a prorated refund: milli-percent refunded."
          },
          "refundRequest": {
            "type": "object",
            "description": "The customer's latest refund request, when the store waits for decisions.",
            "properties": {
              "status": {
                "type": "string",
                "enum": [
                  "pending",
                  "refunded",
                  "declined",
                  "reversed"
                ]
              },
              "requestDate": {
                "type": "string"
              },
              "consumptionRequestReason": {
                "type": "string"
              },
              "decisionDate": {
                "type": "string"
              },
              "consumption": {
                "type": "array",
                "description": "What the app's server sent with Send Consumption Information (v1 or v2), oldest first.",
                "items": {
                  "type": "object",
                  "properties": {
                    "date": {
                      "type": "string"
                    },
                    "version": {
                      "type": "integer"
                    },
                    "fields": {
                      "type": "string",
                      "description": "The request body's fields, as JSON with sorted keys."
                    }
                  }
                }
              }
            }
          },
          "offerType": {
            "type": "integer"
          },
          "offerIdentifier": {
            "type": "string"
          },
          "offerDiscountType": {
            "type": "string"
          }
        }
      },
      "Subscription": {
        "type": "object",
        "description": "A subscription with its renewal state: status, period, auto-renew, pending offers and price consent."
      },
      "Notification": {
        "type": "object",
        "required": [
          "notificationUUID",
          "notificationType",
          "date",
          "bundleId",
          "delivery",
          "attempts"
        ],
        "properties": {
          "notificationUUID": {
            "type": "string"
          },
          "notificationType": {
            "type": "string"
          },
          "subtype": {
            "type": "string"
          },
          "date": {
            "type": "string"
          },
          "bundleId": {
            "type": "string"
          },
          "account": {
            "type": "string"
          },
          "transactionId": {
            "type": "string"
          },
          "delivery": {
            "type": "string"
          },
          "nextAttemptDate": {
            "type": "string"
          },
          "signedPayload": {
            "type": "string"
          },
          "status": {
            "type": "integer"
          },
          "attempts": {
            "type": "array",
            "items": {
              "type": "object",
              "properties": {
                "date": {
                  "type": "string"
                },
                "result": {
                  "type": "string"
                },
                "httpStatusCode": {
                  "type": "integer"
                },
                "responseExcerpt": {
                  "type": "string"
                }
              }
            }
          }
        }
      }
    },
    "responses": {
      "Error": {
        "description": "The store refuses the request; the message says what to send instead.",
        "content": {
          "application/json": {
            "schema": {
              "$ref": "#/components/schemas/Error"
            }
          }
        }
      },
      "NotFound": {
        "description": "No such product, transaction, notification, tenant or key.",
        "content": {
          "application/json": {
            "schema": {
              "$ref": "#/components/schemas/Error"
            }
          }
        }
      }
    }
  }
}
"""#
}
