/* html.c: the self-contained HTML report with crash timelines. */
#include <config.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "result/finding.h"
#include "report/html.h"
#include "format/mark.h"
#include "report/report.h"
#include "util/util.h"
#include "result/result.h"

#define MAX_FAILING_LISTED 2000

/* The page around the data.  The data is JSON in a non-executed script
 * element; the code reads it with JSON.parse and builds the page with
 * createElement and textContent only. */
static const char page_head[] =
"<!DOCTYPE html>\n"
"<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
"<title>powercut report</title>\n"
"<style>\n"
"body{font:14px/1.4 system-ui,-apple-system,'Segoe UI',sans-serif;margin:24px;color:#222;background:#fafafa}\n"
"h1{font-size:20px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 6px}h3{font-size:14px;margin:14px 0 4px}\n"
".sub{color:#666;margin-bottom:12px}\n"
"table{border-collapse:collapse;background:#fff;margin:6px 0}\n"
"td,th{border:1px solid #ddd;padding:3px 8px;text-align:left;vertical-align:top}\n"
"th{background:#f0f0f0}td.n{text-align:right;font-variant-numeric:tabular-nums}\n"
".chip{display:inline-block;white-space:nowrap;padding:1px 8px;margin:2px 6px 2px 0;border-radius:10px;color:#fff;font-size:12px}\n"
".tl{background:#fff;border:1px solid #ddd;padding:6px;margin:6px 0}\n"
"canvas{display:block;width:100%;cursor:crosshair}\n"
"code,.mono{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px}\n"
".details{background:#fff;border:1px solid #ddd;padding:6px;margin:6px 0;max-height:320px;overflow:auto}\n"
".muted{color:#777}.bad{font-weight:600}\n"
".axis{margin:8px 0}\n"
"</style></head><body>\n"
"<h1>powercut report</h1><div class=\"sub\" id=\"title\"></div>\n"
"<div id=\"compare\"></div>\n"
"<div class=\"axis\"><label>timelines against <select id=\"axis\"><option value=\"records\">records</option>"
"<option value=\"seconds\">seconds</option></select></label></div>\n"
"<div id=\"configs\"></div>\n"
"<script type=\"application/json\" id=\"data\">";

static const char page_tail[] =
"</script>\n"
"<script>\n"
"'use strict';\n"
"window.onerror=function(m){document.body.dataset.errors=(document.body.dataset.errors||'')+m+'\\n';};\n"
"const D=JSON.parse(document.getElementById('data').textContent);\n"
"/* The verdicts, from powercut's one table: in its order, with a rank (the\n"
"   worst of a pixel's states colours it) and a colour.  The one that is no\n"
"   verdict (powercut could not check the state) is kept apart from V. */\n"
"const NAMES=D.verdicts.map(v=>v.name),C={},RANK={},MEANING={};\n"
"D.verdicts.forEach(function(v){C[v.name]=v.colour;RANK[v.name]=v.rank;MEANING[v.name]=v.meaning;});\n"
"const OK=NAMES[0],NC=D.verdicts.find(v=>!v.verdict).name,V=NAMES.filter(v=>v!==NC);\n"
"function el(tag,text,cls){const e=document.createElement(tag);if(text!==undefined&&text!==null)e.textContent=String(text);if(cls)e.className=cls;return e;}\n"
"function row(cells,tag){const tr=el('tr');for(const c of cells){const td=el(tag||'td');if(c instanceof Node)td.appendChild(c);else td.textContent=String(c);tr.appendChild(td);}return tr;}\n"
"function secs(x){return x===null||x===undefined?'-':x.toFixed(1)+' s';}\n"
"function winCells(w){return [(w.not_durable&&w.open>=(w.longest||0)?'>'+secs(w.open):secs(w.longest)),secs(w.median),w.acknowledged_lost?secs(w.acknowledged_exposed):'-'];}\n"
"const TMAX=Math.max(1e-3,...D.configs.map(c=>c.duration));\n"
"const redraw=[];document.getElementById('axis').onchange=function(){redraw.forEach(f=>f());};\n"
"if(location.hash==='#seconds')document.getElementById('axis').value='seconds';\n"
"function chip(v,n){const s=el('span',v+' '+n,'chip');s.style.background=C[v];s.title=MEANING[v]||'';return s;}\n"
"document.getElementById('title').textContent=D.title;\n"
"if(D.configs.length>1){\n"
"  const h=el('h2','Comparison');const t=el('table');t.id='comparison';\n"
"  const anyNC=D.configs.some(c=>c.totals[NC]>0),anyW=D.configs.some(c=>c.windows.versions>0);\n"
"  t.appendChild(row(['configuration','crash points'].concat(V,['files affected'],anyNC?['not checked']:[],anyW?['longest window','median window','acknowledged lost']:[]),'th'));\n"
"  D.configs.forEach(function(c,i){const r=row([c.label,c.totals.points].concat(V.map(v=>c.totals[v]),[c.files],anyNC?[c.totals[NC]]:[],anyW?winCells(c.windows):[]));\n"
"    for(let k=1;k<r.children.length;k++)r.children[k].className='n';r.dataset.config=i;t.appendChild(r);});\n"
"  const d=document.getElementById('compare');d.appendChild(h);d.appendChild(t);\n"
"}\n"
"/* Timelines are aligned on the marks every configuration has: each mark\n"
"   sits at the same x in all of them, records in between spread evenly. */\n"
"const common=D.configs.length?D.configs[0].marks.map(m=>m.name).filter(nm=>D.configs.every(c=>c.marks.filter(m=>m.name===nm).length===1)):[];\n"
"const anchorX=common.map(nm=>D.configs.reduce((a,c)=>a+c.marks.find(m=>m.name===nm).record/Math.max(1,c.records),0)/D.configs.length);\n"
"for(let i=1;i<anchorX.length;i++)if(anchorX[i]<anchorX[i-1])anchorX[i]=anchorX[i-1];\n"
"function mapper(c){const rs=[0],xs=[0];common.forEach(function(nm,i){rs.push(c.marks.find(m=>m.name===nm).record);xs.push(anchorX[i]);});\n"
"  rs.push(Math.max(1,c.records));xs.push(1);\n"
"  return function(r){let k=1;while(k<rs.length-1&&r>rs[k])k++;const a=rs[k-1],b=rs[k];\n"
"    return xs[k-1]+(b>a?(r-a)/(b-a):0)*(xs[k]-xs[k-1]);};}\n"
"const legend=el('div');V.forEach(v=>legend.appendChild(chip(v,'')));\n"
"legend.appendChild(el('span','  marks: dark lines; flushes: ticks (and shaded epochs)','muted'));\n"
"document.getElementById('configs').appendChild(legend);\n"
"D.configs.forEach(function(c,ci){\n"
"  const sec=el('section');sec.id='config-'+ci;\n"
"  sec.appendChild(el('h2',c.label));\n"
"  sec.appendChild(el('div',c.log+' \\u2014 model '+c.model+', '+c.totals.points+' crash points from '+\n"
"    (c.from||'the start')+' (record '+c.from_record+') of '+c.records+' records, '+c.totals.unique+' distinct images','muted'));\n"
"  const tot=el('div');tot.className='totals';\n"
"  V.forEach(function(v){if(c.totals[v]||v===OK){const s=chip(v,c.totals[v]);s.dataset.verdict=v;s.dataset.count=c.totals[v];tot.appendChild(s);}});\n"
"  if(c.totals[NC]){const s=chip(NC,c.totals[NC]);s.dataset.verdict=NC;s.dataset.count=c.totals[NC];s.title='powercut could not check these states: no verdict';\n"
"    tot.appendChild(el('span',' \\u2003not a verdict: ','muted'));tot.appendChild(s);}\n"
"  sec.appendChild(tot);\n"
"  if(c.not_judged.length){const d=el('div','Not judged: '+c.not_judged.length+' path(s) the workload changed after its last mark ('+c.last_mark+'); place a final mark after its last change to judge them.','muted');d.className='notjudged muted';sec.appendChild(d);}\n"
"  const tl=el('div',null,'tl');const cv=document.createElement('canvas');cv.height=120;tl.appendChild(cv);\n"
"  const det=el('div',null,'details');det.textContent='Click the timeline to list the crash points there.';\n"
"  sec.appendChild(tl);sec.appendChild(det);\n"
"  document.getElementById('configs').appendChild(sec);\n"
"  draw(c,cv,det);redraw.push(()=>draw(c,cv,det));\n"
"  if(c.windows.versions>0){const w=c.windows;sec.appendChild(el('h3','Durability windows'));\n"
"    sec.appendChild(el('div',w.versions+' versions: longest '+secs(w.longest)+', median '+secs(w.median)+\n"
"      (w.not_durable?'; '+w.not_durable+' not durable by the last crash point (at risk '+secs(w.open)+' by then)':'')+\n"
"      '; acknowledged data lost after its durable mark: '+(w.acknowledged_lost?'up to '+secs(w.acknowledged_exposed):'none')+\n"
"      '. Each bar runs from the mark that recorded a version to the first crash point from which no crash loses it; red while crash states after the mark still lost it, orange: not durable by the end.'+\n"
"      (w.paths.length<w.npaths?' The '+w.paths.length+' paths with the longest windows of '+w.npaths+'.':''),'muted'));\n"
"    const wt=el('div',null,'tl windows');const wc=document.createElement('canvas');wc.className='windows';wt.appendChild(wc);sec.appendChild(wt);\n"
"    drawWin(c,wc);redraw.push(()=>drawWin(c,wc));}\n"
"  if(c.paths.length){sec.appendChild(el('h3','Failing paths ('+c.paths.length+')'));const t=el('table');t.className='paths';\n"
"    t.appendChild(row(['path','verdict','points','first','last','found','allowed'],'th'));\n"
"    c.paths.forEach(function(p){const r=row([p.path,chip(p.verdict,''),p.count,p.first,p.last,p.found,p.allowed]);\n"
"      r.children[0].className='mono';r.children[5].className='mono';r.children[6].className='mono';t.appendChild(r);});\n"
"    sec.appendChild(t);}\n"
"  if(c.failing.length){sec.appendChild(el('h3','Failing crash points ('+c.totals.failing+(c.failing.length<c.totals.failing?', the first '+c.failing.length+' listed':'')+')'));\n"
"    const t=el('table');t.className='failing';t.appendChild(row(['crash point','verdict','what','rebuild it'],'th'));\n"
"    c.failing.forEach(function(f){const what=f.findings.map(x=>x.verdict+' '+x.path+': '+x.found).concat(f.evidence).join('\\n');\n"
"      const w=el('div',what,'mono');w.style.whiteSpace='pre-wrap';\n"
"      t.appendChild(row([el('code',f.id),chip(f.verdict,''),w,el('code',f.replay)]));});\n"
"    sec.appendChild(t);}\n"
"  if(c.unchecked.length){sec.appendChild(el('h3','Crash points not checked ('+c.totals.unchecked+(c.unchecked.length<c.totals.unchecked?', the first '+c.unchecked.length+' listed':'')+')'));\n"
"    const t=el('table');t.className='unchecked';t.appendChild(row(['crash point','why','rebuild it'],'th'));\n"
"    c.unchecked.forEach(function(f){const w=el('div',f.evidence.join('\\n'),'mono');w.style.whiteSpace='pre-wrap';\n"
"      t.appendChild(row([el('code',f.id),w,el('code',f.replay)]));});\n"
"    sec.appendChild(t);}\n"
"});\n"
"function secMode(){return document.getElementById('axis').value==='seconds';}\n"
"function draw(c,cv,det){\n"
"  const W=Math.max(300,cv.parentNode.clientWidth-12);cv.width=W;const H=cv.height;\n"
"  const g=cv.getContext('2d');const f=mapper(c);const S=secMode();const clamp=v=>Math.max(0,Math.min(W-1,Math.floor(v*(W-1))));\n"
"  /* positions: of a record number, or (against seconds) of a time */\n"
"  const x=r=>clamp(f(r)),xt=t=>clamp(t/TMAX);cv.dataset.axis=S?'seconds':'records';\n"
"  const P=i=>S?xt(c.t[i]):x(c.rec[i]),FX=j=>S?xt(c.ft[j]):x(c.flushes[j]),MX=m=>S?xt(m.time):x(m.record);\n"
"  g.fillStyle='#fff';g.fillRect(0,0,W,H);\n"
"  /* flush epochs: alternate bands when they are wide enough, ticks always */\n"
"  const fl=c.flushes;let last=S?0:x(0);\n"
"  for(let i=0;i<fl.length;i++){const a=last,b=FX(i);if(i%2&&b-a>2){g.fillStyle='#f2f2f2';g.fillRect(a,26,b-a,H-52);}\n"
"    g.fillStyle='#aaa';g.fillRect(b,H-24,1,6);last=b;}\n"
"  /* crash points: the worst verdict per pixel column */\n"
"  const worst=new Int8Array(W).fill(-1);\n"
"  for(let i=0;i<c.rec.length;i++){const px=P(i);const v=c.v[i];if(worst[px]<0||RANK[NAMES[v]]>RANK[NAMES[worst[px]]])worst[px]=v;}\n"
"  for(let px=0;px<W;px++){const v=worst[px];if(v<0)continue;g.fillStyle=C[NAMES[v]];\n"
"    if(v===0)g.fillRect(px,H-48,1,20);else g.fillRect(px,26,2,H-54);}\n"
"  /* marks: labelled lines, labels in two lanes */\n"
"  g.font='11px sans-serif';g.textBaseline='top';let lastx=-1e9,lane=0;\n"
"  c.marks.forEach(function(m){const px=MX(m);g.fillStyle='#555';g.fillRect(px,24,1,H-48);\n"
"    lane=px-lastx<90?1-lane:0;lastx=px;g.fillText(m.name+' '+m.time.toFixed(1)+'s',Math.min(px+2,W-80),lane*12);});\n"
"  g.fillStyle='#777';g.fillText(S?'0 s':'record 0',0,H-12);const e=S?TMAX.toFixed(1)+' s':'record '+c.records;g.fillText(e,W-g.measureText(e).width,H-12);\n"
"  cv.onclick=function(ev){const r=cv.getBoundingClientRect();const px=Math.round((ev.clientX-r.left)*W/r.width);\n"
"    const lo=px-2,hi=px+2;det.textContent='';const hits=[];\n"
"    for(let i=0;i<c.rec.length&&hits.length<50;i++){const p=P(i);if(p>=lo&&p<=hi)hits.push(i);}\n"
"    if(!hits.length){det.textContent='No crash point there.';return;}\n"
"    hits.forEach(function(i){const d=el('div');d.appendChild(chip(NAMES[c.v[i]],''));d.appendChild(el('code',c.ids[i]+'  '+c.replay_pre+c.ids[i]+c.replay_post));det.appendChild(d);});};\n"
"}\n"
"/* windows: a lane per path, a bar per version, against seconds */\n"
"function drawWin(c,cv){const w=c.windows;const W=Math.max(300,cv.parentNode.clientWidth-12);cv.width=W;\n"
"  const n=w.paths.length,lh=Math.max(3,Math.min(14,Math.floor(420/Math.max(1,n)))),top=14;cv.height=top+n*lh+16;\n"
"  const g=cv.getContext('2d');const X=t=>Math.max(0,Math.min(W-1,Math.floor(t/TMAX*(W-1))));\n"
"  g.fillStyle='#fff';g.fillRect(0,0,W,cv.height);g.font='11px sans-serif';g.textBaseline='top';\n"
"  c.marks.forEach(function(m){g.fillStyle='#eee';g.fillRect(X(m.time),top,1,n*lh);});\n"
"  for(let k=0;k<w.bars.length;k+=4){const y=top+w.bars[k]*lh,a=X(w.bars[k+1]),du=w.bars[k+2],ex=w.bars[k+3];\n"
"    const b=du<0?X(c.duration):X(du);g.fillStyle=du<0?'#f80':'#9c9';g.fillRect(a,y,Math.max(1,b-a),lh-1);\n"
"    if(ex>0){g.fillStyle='#d33';g.fillRect(a,y,Math.max(1,X(w.bars[k+1]+ex)-a),lh-1);}}\n"
"  if(lh>=10)w.paths.forEach(function(p,i){g.fillStyle='rgba(255,255,255,0.8)';g.fillRect(1,top+i*lh,g.measureText(p).width+4,lh-1);g.fillStyle='#333';g.fillText(p,3,top+i*lh);});\n"
"  g.fillStyle='#777';g.fillText('0 s',0,top+n*lh+2);const e=TMAX.toFixed(1)+' s';g.fillText(e,W-g.measureText(e).width,top+n*lh+2);\n"
"  cv.dataset.bars=String(w.bars.length/4);}\n"
"document.body.dataset.ms=Math.round(performance.now());document.body.dataset.ready='1';\n"
"</script></body></html>\n";

/* Adds key: s for people to o (finding.h's display forms: any bytes). */
static void
add_shown (json_object *o, const char *key, char *(*show) (const char *), const char *s)
{
  char *d = show (s);

  json_object_object_add (o, key, json_object_new_string (d ? d : "?"));
  free (d);
}

/* Distinct paths of a result's findings of one kind (-1: every failing
 * kind), as JSON rows in path order. */
static json_object *
paths_json (const struct pc_check_result *res, int kind)
{
  json_object *arr = json_object_new_array ();
  size_t n;
  struct pc_path_sum *v = pc_report_paths (res, kind, &n);

  for (size_t j = 0; j < n; j++) {
    const struct pc_finding *fd = v[j].first;
    json_object *o = json_object_new_object ();
    add_shown (o, "path", pc_display_name, fd->path);
    json_object_object_add (o, "verdict", json_object_new_string (pc_finding_name (fd->kind)));
    add_shown (o, "found", pc_display_line, fd->found);
    add_shown (o, "allowed", pc_display_line, fd->allowed);
    json_object_object_add (o, "first", json_object_new_string (v[j].first_id));
    json_object_object_add (o, "count", json_object_new_int ((int) v[j].npoints));
    json_object_object_add (o, "last", json_object_new_string (v[j].last_id));
    json_object_array_add (arr, o);
  }
  free (v);
  return arr;
}

/* One listed point: id, verdict, evidence, failing findings, replay. */
static json_object *
point_row (const struct pc_check_result *res, const struct pc_point *p)
{
  json_object *f = json_object_new_object (), *ev = json_object_new_array ();
  json_object *fa = json_object_new_array ();
  char *shown = pc_display_text (p->evidence), cmd[512];

  json_object_object_add (f, "id", json_object_new_string (p->id));
  json_object_object_add (f, "verdict", json_object_new_string (pc_verdict_name (p->verdict)));
  for (const char *l = shown ? shown : "?"; *l;) {
    const char *nl = strchr (l, '\n');
    size_t n = nl ? (size_t) (nl - l) : strlen (l);
    json_object_array_add (ev, json_object_new_string_len (l, (int) n));
    l += n + (nl ? 1 : 0);
  }
  free (shown);
  for (size_t k = 0; k < p->findings.n; k++) {
    const struct pc_finding *fd = &p->findings.v[k];
    json_object *x;
    if (pc_finding_verdict (fd->kind) == PC_V_OK)
      continue;
    x = json_object_new_object ();
    json_object_object_add (x, "verdict", json_object_new_string (pc_finding_name (fd->kind)));
    add_shown (x, "path", pc_display_name, fd->path);
    add_shown (x, "found", pc_display_line, fd->found);
    json_object_array_add (fa, x);
  }
  json_object_object_add (f, "evidence", ev);
  json_object_object_add (f, "findings", fa);
  pc_report_replay_cmd (res, p, cmd, sizeof cmd);
  add_shown (f, "replay", pc_display_line, cmd);
  return f;
}

#define MAX_WINDOW_PATHS 300

/* A path's versions in res->windows (consecutive: they are by path). */
struct wpath {
  size_t first, n;
  uint64_t score;               /* its longest window, or time at risk */
};

static int
by_score (const void *a, const void *b)
{
  const struct wpath *x = a, *y = b;

  if (x->score != y->score)
    return x->score > y->score ? -1 : 1;
  return x->first < y->first ? -1 : x->first > y->first;
}

static int
by_first (const void *a, const void *b)
{
  const struct wpath *x = a, *y = b;

  return x->first < y->first ? -1 : x->first > y->first;
}

static json_object *
seconds (uint64_t ns)
{
  return json_object_new_double ((double) (ns / 1000000) / 1e3);
}

/* The windows for the page: the summary, and the bars of the paths with
 * the longest windows (all of them, up to MAX_WINDOW_PATHS). */
static json_object *
windows_json (const struct pc_check_result *res)
{
  json_object *o, *paths = json_object_new_array ();
  json_object *bars = json_object_new_array ();
  uint64_t end = res->npoints ? res->points[res->npoints - 1].time_ns : 0;
  struct pc_window_summary s;
  struct wpath *wp = malloc ((res->nwindows ? res->nwindows : 1) * sizeof *wp);
  size_t np = 0;

  pc_windows_summary (res, &s);
  for (size_t i = 0; wp && i < res->nwindows; i++) {
    const struct pc_window *w = &res->windows[i];
    uint64_t score = w->durable_ns >= 0 ? w->window_ns : end > w->written_ns ? end - w->written_ns : 0;
    if (np == 0 || strcmp (res->windows[wp[np - 1].first].path, w->path) != 0)
      wp[np++] = (struct wpath) { i, 0, 0 };
    wp[np - 1].n++;
    if (score > wp[np - 1].score)
      wp[np - 1].score = score;
  }
  o = pc_windows_summary_json (&s);
  json_object_object_add (o, "npaths", json_object_new_int64 ((int64_t) np));
  if (wp && np > MAX_WINDOW_PATHS) {
    qsort (wp, np, sizeof *wp, by_score);
    np = MAX_WINDOW_PATHS;
    qsort (wp, np, sizeof *wp, by_first);
  }
  for (size_t k = 0; wp && k < np; k++) {
    char *shown = pc_display_name (res->windows[wp[k].first].path);
    json_object_array_add (paths, json_object_new_string (shown ? shown : "?"));
    free (shown);
    for (size_t i = wp[k].first; i < wp[k].first + wp[k].n; i++) {
      const struct pc_window *w = &res->windows[i];
      json_object_array_add (bars, json_object_new_int ((int) k));
      json_object_array_add (bars, seconds (w->written_ns));
      json_object_array_add (bars, w->durable_ns >= 0 ? seconds ((uint64_t) w->durable_ns)
                                                      : json_object_new_int (-1));
      json_object_array_add (bars, seconds (w->exposed_ns));
    }
  }
  free (wp);
  json_object_object_add (o, "paths", paths);
  json_object_object_add (o, "bars", bars);
  return o;
}

static json_object *
config_json (const struct pc_html_config *hc)
{
  const struct pc_check_result *res = hc->res;
  json_object *o = json_object_new_object (), *t = json_object_new_object ();
  json_object *rec = json_object_new_array_ext ((int) res->npoints);
  json_object *v = json_object_new_array_ext ((int) res->npoints);
  json_object *ids = json_object_new_array_ext ((int) res->npoints);
  json_object *failing = json_object_new_array (), *marks = json_object_new_array ();
  json_object *flushes = json_object_new_array (), *paths;
  json_object *unchecked = json_object_new_array ();
  json_object *t_arr = json_object_new_array_ext ((int) res->npoints);
  json_object *ft = json_object_new_array ();
  size_t nfail = 0, nnot = 0;
  char cmd[512];

  json_object_object_add (o, "label", json_object_new_string (hc->label));
  add_shown (o, "log", pc_display_line, res->log_path);
  json_object_object_add (o, "model", json_object_new_string (pc_model_name (res->model.kind)));
  json_object_object_add (o, "from", json_object_new_string (res->from));
  json_object_object_add (o, "from_record", json_object_new_int64 ((int64_t) res->from_record));
  json_object_object_add (o, "records", json_object_new_int64 ((int64_t) res->records));
  for (size_t i = 0; i < res->npoints; i++) {
    const struct pc_point *p = &res->points[i];
    json_object_array_add (rec, json_object_new_int64 ((int64_t) p->record));
    json_object_array_add (t_arr, seconds (p->time_ns));
    json_object_array_add (v, json_object_new_int ((int) p->verdict));
    json_object_array_add (ids, json_object_new_string (p->id));
    if (p->verdict == PC_V_OK)
      continue;
    if (p->verdict == PC_V_NOT_CHECKED) {
      if (nnot++ < MAX_FAILING_LISTED)
        json_object_array_add (unchecked, point_row (res, p));
    }
    else if (nfail++ < MAX_FAILING_LISTED)
      json_object_array_add (failing, point_row (res, p));
  }
  /* The replay command around a point's id, as the text report prints it. */
  {
    struct pc_point probe;
    char *at;
    memset (&probe, 0, sizeof probe);
    strcpy (probe.id, "\x01");
    pc_report_replay_cmd (res, &probe, cmd, sizeof cmd);
    at = strchr (cmd, '\x01');
    if (at) {
      json_object_object_add (o, "replay_pre", json_object_new_string_len (cmd, (int) (at - cmd)));
      json_object_object_add (o, "replay_post", json_object_new_string (at + 1));
    }
  }
  json_object_object_add (o, "rec", rec);
  json_object_object_add (o, "v", v);
  json_object_object_add (o, "ids", ids);
  json_object_object_add (o, "failing", failing);
  json_object_object_add (o, "unchecked", unchecked);
  json_object_object_add (o, "last_mark", json_object_new_string (res->last_mark));
  json_object_object_add (t, "points", json_object_new_int64 ((int64_t) res->npoints));
  json_object_object_add (t, "unique", json_object_new_int64 ((int64_t) res->unique));
  json_object_object_add (t, "failing", json_object_new_int64 ((int64_t) nfail));
  json_object_object_add (t, "unchecked", json_object_new_int64 ((int64_t) nnot));
  for (int k = 0; k < PC_V_COUNT; k++)
    json_object_object_add (t, pc_verdict_name (k), json_object_new_int64 ((int64_t) res->count[k]));
  json_object_object_add (o, "totals", t);
  json_object_object_add (o, "not_judged", paths_json (res, PC_F_NOT_JUDGED));
  paths = paths_json (res, -1);
  json_object_object_add (o, "files", json_object_new_int ((int) json_object_array_length (paths)));
  json_object_object_add (o, "paths", paths);
  if (hc->ix) {
    for (uint64_t i = 0; i < hc->ix->n; i++) {
      const struct pc_record *r = &hc->ix->recs[i];
      if (r->type == PC_REC_FLUSH) {
        json_object_array_add (flushes, json_object_new_int64 ((int64_t) i));
        json_object_array_add (ft, seconds (r->time_ns));
      }
      else if (r->type == PC_REC_MARK) {
        struct pc_mark m;
        if (pc_mark_decode (r->data, r->datalen, &m, NULL, 0) == 0) {
          json_object *mk = json_object_new_object ();
          json_object_object_add (mk, "record", json_object_new_int64 ((int64_t) i));
          json_object_object_add (mk, "name", json_object_new_string (m.name));
          json_object_object_add (mk, "time", json_object_new_double (r->time_ns / 1e9));
          json_object_array_add (marks, mk);
          pc_mark_free (&m);
        }
      }
    }
  }
  json_object_object_add (o, "marks", marks);
  json_object_object_add (o, "flushes", flushes);
  json_object_object_add (o, "ft", ft);
  json_object_object_add (o, "t", t_arr);
  json_object_object_add (o, "duration", seconds (hc->ix && hc->ix->n ? hc->ix->recs[hc->ix->n - 1].time_ns
                                                  : res->npoints ? res->points[res->npoints - 1].time_ns : 0));
  json_object_object_add (o, "windows", windows_json (res));
  return o;
}

/* Writes JSON text so that no "</script" (or any markup) can appear in it:
 * <, > and & only occur inside strings, where \u escapes mean the same. */
static int
write_safe_json (FILE *f, const char *s)
{
  for (; *s; s++) {
    int r;
    if (*s == '<')
      r = fputs ("\\u003c", f);
    else if (*s == '>')
      r = fputs ("\\u003e", f);
    else if (*s == '&')
      r = fputs ("\\u0026", f);
    else
      r = fputc (*s, f);
    if (r == EOF)
      return -EIO;
  }
  return 0;
}

/* The verdict table, for the page's code. */
static json_object *
verdicts_json (void)
{
  json_object *a = json_object_new_array ();

  for (int v = 0; v < PC_V_COUNT; v++) {
    const struct pc_verdict_info *vi = pc_verdict_info (v);
    json_object *o = json_object_new_object ();
    json_object_object_add (o, "name", json_object_new_string (vi->name));
    json_object_object_add (o, "rank", json_object_new_int (vi->rank));
    json_object_object_add (o, "colour", json_object_new_string (vi->colour));
    json_object_object_add (o, "meaning", json_object_new_string (vi->meaning));
    json_object_object_add (o, "verdict", json_object_new_boolean (v != PC_V_NOT_CHECKED));
    json_object_array_add (a, o);
  }
  return a;
}

int
pc_report_html (const char *path, const char *title,
                const struct pc_html_config *cfg, size_t n)
{
  json_object *root = json_object_new_object (), *arr = json_object_new_array ();
  FILE *f;
  int r = 0;

  json_object_object_add (root, "title", json_object_new_string (title));
  json_object_object_add (root, "verdicts", verdicts_json ());
  for (size_t i = 0; i < n; i++)
    json_object_array_add (arr, config_json (&cfg[i]));
  json_object_object_add (root, "configs", arr);
  f = fopen (path, "we");
  if (f == NULL) {
    r = -errno;
    json_object_put (root);
    return r;
  }
  if (fputs (page_head, f) == EOF)
    r = -EIO;
  if (r == 0)
    r = write_safe_json (f, json_object_to_json_string_ext (root, JSON_C_TO_STRING_PLAIN));
  if (r == 0 && fputs (page_tail, f) == EOF)
    r = -EIO;
  if (fclose (f) == EOF && r == 0)
    r = -errno;
  json_object_put (root);
  return r;
}
