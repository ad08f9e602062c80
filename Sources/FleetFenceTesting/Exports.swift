// Tests import FleetFenceTesting alone and get the broker and the client with it.
@_exported import LocalBroker
@_exported import MQTT
