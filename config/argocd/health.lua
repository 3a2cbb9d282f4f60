-- Argo CD health for every kind of graphql.engine.dev. Reads the kstatus conditions the operator
-- writes (controller/runtime/conditions.ts, Note [An outage is not a stall]):
--   spec not yet seen (observedGeneration behind)  -> Progressing
--   Stalled=True (a human must act: invalid spec,  -> Degraded
--     conflict, inconsistent metadata, refused secret)
--   Ready=True                                     -> Healthy
--   anything else (Reconciling: engine unreachable or rolling out, dependency missing, dry run;
--     no status yet)                               -> Progressing
-- Conditions written by other tools may lack reason or message: every field is read defensively.
local hs = { status = "Progressing", message = "Waiting for the operator" }

local function text(c)
  local reason = c.reason
  if type(reason) ~= "string" or reason == "" then reason = c.type or "Unknown" end
  if type(c.message) == "string" and c.message ~= "" then
    return reason .. ": " .. c.message
  end
  return reason
end

if obj.metadata ~= nil and obj.metadata.deletionTimestamp ~= nil then
  hs.message = "Being deleted"
  return hs
end
if obj.status == nil or type(obj.status.conditions) ~= "table" then
  return hs
end
if obj.status.observedGeneration ~= nil and obj.metadata ~= nil and obj.metadata.generation ~= nil
    and obj.status.observedGeneration < obj.metadata.generation then
  hs.message = "Waiting for the operator to see the latest spec"
  return hs
end
local ready = nil
local stalled = nil
local reconciling = nil
for _, c in ipairs(obj.status.conditions) do
  if type(c) == "table" then
    if c.type == "Ready" then ready = c end
    if c.type == "Stalled" then stalled = c end
    if c.type == "Reconciling" then reconciling = c end
  end
end
if stalled ~= nil and stalled.status == "True" then
  hs.status = "Degraded"
  hs.message = text(stalled)
  return hs
end
if ready ~= nil and ready.status == "True" then
  hs.status = "Healthy"
  if type(ready.message) == "string" and ready.message ~= "" then
    hs.message = ready.message
  else
    hs.message = text(ready)
  end
  return hs
end
if reconciling ~= nil and reconciling.status == "True" then
  hs.message = text(reconciling)
elseif ready ~= nil then
  hs.message = text(ready)
end
return hs
