-- Argo CD health for every kind of graphql.engine.dev (Engine, Source, TrackedTable, Permission,
-- RemoteSchema, EventTrigger, CronTrigger). Reads the kstatus conditions the operator writes:
--   spec not yet seen (observedGeneration behind)  -> Progressing
--   Stalled=True                                   -> Degraded (InconsistentMetadata, EngineUnreachable, ...)
--   Ready=True                                     -> Healthy
--   anything else (Reconciling, no status yet)     -> Progressing
local hs = { status = "Progressing", message = "Waiting for the operator" }
if obj.metadata ~= nil and obj.metadata.deletionTimestamp ~= nil then
  hs.message = "Being deleted"
  return hs
end
if obj.status == nil or obj.status.conditions == nil then
  return hs
end
if obj.status.observedGeneration ~= nil and obj.metadata.generation ~= nil
    and obj.status.observedGeneration < obj.metadata.generation then
  hs.message = "Waiting for the operator to see the latest spec"
  return hs
end
local ready = nil
local stalled = nil
local reconciling = nil
for _, c in ipairs(obj.status.conditions) do
  if c.type == "Ready" then ready = c end
  if c.type == "Stalled" then stalled = c end
  if c.type == "Reconciling" then reconciling = c end
end
if stalled ~= nil and stalled.status == "True" then
  hs.status = "Degraded"
  hs.message = stalled.reason .. ": " .. (stalled.message or "")
  return hs
end
if ready ~= nil and ready.status == "True" then
  hs.status = "Healthy"
  hs.message = ready.message or ready.reason
  return hs
end
if reconciling ~= nil and reconciling.status == "True" then
  hs.message = reconciling.reason .. ": " .. (reconciling.message or "")
elseif ready ~= nil then
  hs.message = ready.reason .. ": " .. (ready.message or "")
end
return hs
