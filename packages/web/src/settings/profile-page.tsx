import { useChangeOwnPassword, useGetMe, useUpdateMyProfile } from '@tessera/client/react';
import { type FormEvent, useEffect, useState } from 'react';
import { Card, PageHeader } from '../layout/page.tsx';
import { ErrorState, LoadingState } from '../layout/states.tsx';
import { useSession } from '../session/session.tsx';
import { Field } from '../ui/field.tsx';
import { noProblems, type Problems, problemsOf } from '../ui/problems.ts';

/** Whether mail can reach an address: its domain has a dot (`admin@localhost` has none). */
export function isDeliverable(email: string): boolean {
  return /@[^@\s]+\.[^@\s]+$/.test(email);
}

/**
 * Settings › Profile (issue 22 item 8): the signed-in user's names, the email their notifications
 * go to, and their password. The first admin starts as `admin@localhost`, which no mail reaches:
 * the page says so until they give a real address.
 */
export function ProfilePage() {
  const me = useGetMe();
  if (me.isPending) return <LoadingState label="Loading your profile…" />;
  if (me.isError) return <ErrorState error={me.error} onRetry={() => me.refetch()} />;
  return (
    <>
      <PageHeader title="Profile" subtitle="Your name, your email and your password." />
      <ProfileForm user={me.data} />
      <PasswordForm />
    </>
  );
}

function ProfileForm({
  user,
}: {
  user: { email: string; firstName: string | null; lastName: string | null };
}) {
  const [email, setEmail] = useState(user.email);
  const [firstName, setFirstName] = useState(user.firstName ?? '');
  const [lastName, setLastName] = useState(user.lastName ?? '');
  const [problems, setProblems] = useState<Problems>(noProblems);
  const [saved, setSaved] = useState('');
  useEffect(() => setEmail(user.email), [user.email]);
  const { updateUser } = useSession();
  const update = useUpdateMyProfile({
    onSuccess: (user) => {
      // The top bar's user menu reads the session's user: it shows the new name at once.
      updateUser({ email: user.email, firstName: user.firstName, lastName: user.lastName });
      setSaved('Your profile is saved.');
    },
    onError: (error) => setProblems(problemsOf(error)),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setProblems(noProblems);
    setSaved('');
    update.mutate({
      body: { email: email.trim(), firstName: firstName.trim() || null, lastName: lastName.trim() || null },
    });
  };
  return (
    <Card title="Your details">
      {!isDeliverable(user.email) && (
        <p className="notice" role="note">
          No mail can reach {user.email}. Give the address your notifications should go to.
        </p>
      )}
      <form onSubmit={submit} noValidate className="settings-form">
        <Field
          label="Email"
          type="email"
          autoComplete="email"
          value={email}
          onChange={setEmail}
          problem={problems.fields.email}
        />
        <Field
          label="Given name"
          autoComplete="given-name"
          value={firstName}
          onChange={setFirstName}
          problem={problems.fields.firstName}
        />
        <Field
          label="Family name"
          autoComplete="family-name"
          value={lastName}
          onChange={setLastName}
          problem={problems.fields.lastName}
        />
        {problems.other && (
          <p className="form-error" role="alert">
            It could not be saved: {problems.other}
          </p>
        )}
        <p role="status" className="form-status">
          {saved}
        </p>
        <button type="submit" className="button button-primary" disabled={update.isPending}>
          {update.isPending ? 'Saving…' : 'Save profile'}
        </button>
      </form>
    </Card>
  );
}

function PasswordForm() {
  const [currentPassword, setCurrent] = useState('');
  const [newPassword, setNew] = useState('');
  const [problems, setProblems] = useState<Problems>(noProblems);
  const [saved, setSaved] = useState('');
  const change = useChangeOwnPassword({
    onSuccess: () => {
      setCurrent('');
      setNew('');
      setSaved('Your password is changed. Your other sessions are signed out.');
    },
    onError: (error) => setProblems(problemsOf(error)),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setProblems(noProblems);
    setSaved('');
    change.mutate({ body: { currentPassword, newPassword } });
  };
  return (
    <Card title="Password">
      <form onSubmit={submit} noValidate className="settings-form">
        <Field
          label="Current password"
          type="password"
          autoComplete="current-password"
          value={currentPassword}
          onChange={setCurrent}
          problem={problems.fields.currentPassword}
        />
        <Field
          label="New password (at least 12 characters)"
          type="password"
          autoComplete="new-password"
          value={newPassword}
          onChange={setNew}
          problem={problems.fields.newPassword}
        />
        {problems.other && (
          <p className="form-error" role="alert">
            The password could not be changed: {problems.other}
          </p>
        )}
        <p role="status" className="form-status">
          {saved}
        </p>
        <button type="submit" className="button button-primary" disabled={change.isPending}>
          {change.isPending ? 'Changing…' : 'Change password'}
        </button>
      </form>
    </Card>
  );
}
