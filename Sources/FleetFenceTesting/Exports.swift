// Tests import FleetFenceTesting alone and get the broker, the client and the settings' keys with it.
@_exported import FleetFenceSettings
@_exported import LocalBroker
@_exported import MQTT
